/** The crypto primitives: hashing, secp256k1 signatures, EIP-191. The signing formats built on them (EIP-712, the exchange REST digests) are src/signing. */
export * from './keccak';
export * from './secp256k1';
export * from './eip191';
