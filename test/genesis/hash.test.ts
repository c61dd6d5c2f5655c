import { keccak_256 } from '@noble/hashes/sha3.js';
import { describe, expect, it } from 'vitest';
import { buildGenesis } from '../../src/genesis/build';
import { canonicalJson, genesisHash, genesisHashHex, parseGenesis } from '../../src/genesis/load';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const DEVNET = buildGenesis('devnet');
const devnet = (): Json => structuredClone(DEVNET);

/** Rebuilds every object with its keys in reverse (or shuffled) order. */
function reorder(value: Json, pick: (keys: string[]) => string[]): Json {
  if (Array.isArray(value)) return value.map((v) => reorder(v, pick));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of pick(Object.keys(value))) out[k] = reorder(value[k], pick);
    return out;
  }
  return value;
}

/** Every leaf path of a JSON value, as arrays of keys/indices. */
function leaves(value: Json, path: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, [...path, i]));
  if (value !== null && typeof value === 'object') return Object.keys(value).flatMap((k) => leaves(value[k], [...path, k]));
  return [path];
}

function getAt(obj: Json, path: (string | number)[]): Json {
  return path.reduce((o, k) => o[k], obj);
}
function setAt(obj: Json, path: (string | number)[], v: Json): void {
  getAt(obj, path.slice(0, -1))[path[path.length - 1]] = v;
}

/** Candidate single-value changes for a leaf (as edits of a fresh copy), most likely valid first. */
function alternatives(path: (string | number)[], v: Json): ((g: Json) => void)[] {
  const key = path[path.length - 1];
  const set = (x: Json) => (g: Json) => setAt(g, path, x);
  const parent = path.slice(0, -1);
  // Values tied to another field by an invariant get a change that respects it.
  if (path[0] === 'pairs' && key === 'id') return [set(v + 1000)];
  if (path[0] === 'pairs' && key === 'lotSize') return [set((BigInt(v) / 10n).toString())];
  if (path[0] === 'pairs' && key === 'minSize') return [(g) => setAt(g, path, (BigInt(v) + BigInt(getAt(g, [...parent, 'lotSize']))).toString())];
  if (path[0] === 'pairs' && key === 'maxLeverage') {
    const other = v === 10 ? 5 : 10;
    return [(g) => (setAt(g, path, other), setAt(g, [...parent, 'maintenanceMarginBps'], 10_000 / other / 2))];
  }
  if (typeof v === 'number') return [set(v + 1), set(v - 1), set(v * 2)];
  if (typeof v === 'string' && /^(0|[1-9]\d*)$/.test(v)) return [set((BigInt(v) + 1n).toString()), set((BigInt(v) - 1n).toString())];
  if (typeof v === 'string' && /^0x[0-9a-f]+$/.test(v)) {
    const last = v[v.length - 1];
    return ['0', '1', '2', '3'].filter((c) => c !== last).map((c) => set(v.slice(0, -1) + c));
  }
  if (typeof v === 'string') return [set(v + 'x'), set(v.slice(0, -1) + (v.endsWith('1') ? '2' : '1'))];
  return [];
}

describe('canonicalJson', () => {
  it('sorts keys recursively, writes bigints as strings, omits undefined, no whitespace', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2n, c: 'x' }, null, true], e: undefined, 'a b': 'é"' })).toBe(
      '{"a":[{"c":"x","d":"2"},null,true],"a b":"é\\"","b":1}',
    );
    expect(canonicalJson([])).toBe('[]');
    expect(canonicalJson({})).toBe('{}');
  });

  it('rejects values JSON cannot represent canonically', () => {
    expect(() => canonicalJson({ a: Number.NaN })).toThrow();
    expect(() => canonicalJson({ a: new Map() })).toThrow();
    expect(() => canonicalJson([undefined])).toThrow();
  });

  it('hash = keccak256(utf8(canonicalJson(parsed genesis)))', () => {
    const parsed = parseGenesis(devnet());
    const expected = keccak_256(new TextEncoder().encode(canonicalJson(parsed)));
    expect(Buffer.from(genesisHash(parsed)).toString('hex')).toBe(Buffer.from(expected).toString('hex'));
    expect(genesisHashHex(parsed)).toBe(`0x${Buffer.from(expected).toString('hex')}`);
    // The canonical text of a parsed genesis is the committed JSON minus whitespace, keys sorted.
    expect(canonicalJson(parsed)).toBe(canonicalJson(devnet()));
  });
});

describe('genesisHash', () => {
  const reference = genesisHashHex(parseGenesis(devnet()));

  it('is stable across key reordering of the JSON input', () => {
    const reversed = reorder(devnet(), (keys) => [...keys].reverse());
    expect(JSON.stringify(reversed)).not.toBe(JSON.stringify(devnet()));
    expect(genesisHashHex(parseGenesis(reversed))).toBe(reference);
    let seed = 7;
    const shuffled = reorder(devnet(), (keys) =>
      keys
        .map((k) => ({ k, r: (seed = (seed * 1103515245 + 12345) % 2 ** 31) }))
        .sort((a, b) => a.r - b.r)
        .map((x) => x.k),
    );
    expect(genesisHashHex(parseGenesis(shuffled))).toBe(reference);
  });

  it('is stable across representation: address case, bigint vs decimal string, JSON round trip', () => {
    const g = devnet();
    g.feeAccount = g.feeAccount.toUpperCase().replace('0X', '0x');
    expect(genesisHashHex(parseGenesis(g))).toBe(reference);
    const parsed = parseGenesis(devnet());
    expect(genesisHashHex(parsed)).toBe(reference);
    expect(genesisHashHex(parseGenesis(JSON.parse(JSON.stringify(devnet()))))).toBe(reference);
  });

  it('changes when any single value changes', () => {
    const base = devnet();
    const paths = leaves(base);
    const seen = new Set<string>([reference]);
    const untestable: string[] = [];
    for (const path of paths) {
      let tested = false;
      for (const edit of alternatives(path, getAt(base, path))) {
        const g = devnet();
        edit(g);
        let parsed;
        try {
          parsed = parseGenesis(g);
        } catch {
          continue; // this change is invalid; try another
        }
        const h = genesisHashHex(parsed);
        expect(h, `changing ${path.join('.')} must change the hash`).not.toBe(reference);
        seen.add(h);
        tested = true;
        break;
      }
      if (!tested) untestable.push(path.join('.'));
    }
    // Only values that admit no other valid value (or are bound to a key) cannot be changed alone.
    const allowed = [
      /^network$/,
      /^nativeToken\.decimals$/,
      /^owners\.threshold$/,
      /^validators\.\d+\.(address|ecdsaPubkey)$/,
      /^faucet\.(address|privateKey)$/,
      /^pairs\.\d+\.maintenanceMarginBps$/, // fixed by maxLeverage
      /^limits\.maxLeverage$/, // 50: above is invalid, below is less than the BTC/ETH pairs use
    ];
    for (const p of untestable) expect(allowed.some((re) => re.test(p)), `unexpectedly untestable: ${p}`).toBe(true);
    expect(untestable.length).toBeLessThan(35);
    expect(paths.length - untestable.length).toBeGreaterThan(300);
    // Distinct changes gave distinct hashes.
    expect(seen.size).toBe(paths.length - untestable.length + 1);
    // The pair leverage is tied to its maintenance margin: change both, and the hash changes.
    const g = devnet();
    g.pairs[0].maxLeverage = 25;
    g.pairs[0].maintenanceMarginBps = 200;
    expect(genesisHashHex(parseGenesis(g))).not.toBe(reference);
  });

  it('differs between devnet and testnet and is 32 bytes', () => {
    expect(genesisHash(parseGenesis(devnet()))).toHaveLength(32);
    expect(genesisHashHex(parseGenesis(buildGenesis('testnet')))).not.toBe(reference);
  });
});
