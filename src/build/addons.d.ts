/** Modules only the single-file build provides (src/build/binary.ts generates the `exchange-build:` ones). */
declare module 'exchange-build:addons' {
  /** The addons embedded for the build's platform: file name, sha256 (hex) and bytes (base64). */
  export const platform: string;
  export const addons: Record<string, { file: string; sha256: string; base64: string }>;
}
declare module 'secp256k1/lib/index.js' {
  const wrap: (addon: unknown) => typeof import('secp256k1');
  export default wrap;
}
declare module 'exchange-build:genesis' {
  /** The repository's genesis files' text, by network. */
  export const genesis: Record<'devnet' | 'testnet', string>;
}
declare module 'exchange-build:snapshot-worker' {
  /** src/storage/snapshot-worker.ts bundled alone as a CommonJS script (the snapshot writer's worker thread). */
  export const source: string;
}
