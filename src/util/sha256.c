/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * SHA-256 through Nettle (nettle-dev): daicho hashes, it does not implement
 * a hash.
 */
#include <stdint.h>

#include <nettle/sha2.h>

#include "util/sha256.h"

void
sha256_hex(const void *data, size_t bytes, char out[SHA256_HEX_BYTES])
{
	static const char digits[] = "0123456789abcdef";
	struct sha256_ctx ctx;
	uint8_t digest[SHA256_DIGEST_SIZE];

	sha256_init(&ctx);
	sha256_update(&ctx, bytes, data);
	sha256_digest(&ctx, sizeof(digest), digest);
	for (size_t i = 0; i < sizeof(digest); i++) {
		out[2 * i] = digits[digest[i] >> 4];
		out[2 * i + 1] = digits[digest[i] & 0xf];
	}
	out[2 * sizeof(digest)] = '\0';
}
