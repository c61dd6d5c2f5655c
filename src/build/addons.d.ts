/** Modules only the single-file build provides (src/build/binary.ts generates the first). */
declare module 'exchange-build:addons' {
  /** The addons embedded for the build's platform: file name, sha256 (hex) and bytes (base64). */
  export const platform: string;
  export const addons: Record<string, { file: string; sha256: string; base64: string }>;
}
declare module 'secp256k1/lib/index.js' {
  const wrap: (addon: unknown) => typeof import('secp256k1');
  export default wrap;
}
