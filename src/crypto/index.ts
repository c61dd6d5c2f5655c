/** The crypto library: hashing, secp256k1 signatures, EIP-191, EIP-712 and the exchange REST digests. */
export * from './keccak';
export * from './secp256k1';
export * from './eip191';
export * from './eip712';
export * from './exchange-digest';
