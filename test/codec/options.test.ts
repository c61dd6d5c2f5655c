/** Action options (src/codec/txs/options.ts, src/signing/action-options.ts): the trailer and the signed text. */
import { describe, expect, it } from 'vitest';
import { Reader, Writer } from '../../src/codec/binary';
import { hasOptions, readOptions, writeOptions, type ActionOptions } from '../../src/codec/txs/options';
import { optionsText } from '../../src/signing/action-options';

const roundTrip = (o: ActionOptions | undefined) => {
  const w = new Writer().u8(7);
  writeOptions(w, o);
  const bytes = w.finish();
  const r = new Reader(bytes);
  expect(r.u8()).toBe(7);
  const back = readOptions(r);
  r.end();
  return { bytes, back };
};

describe('action options', () => {
  it('add no byte when absent, so a transaction without options keeps its bytes', () => {
    expect(roundTrip(undefined).bytes).toEqual(new Uint8Array([7]));
    expect(roundTrip({}).bytes).toEqual(new Uint8Array([7]));
    expect(roundTrip({}).back).toEqual({});
    expect(hasOptions({})).toBe(false);
  });

  it('round-trip every combination', () => {
    const all: ActionOptions = { cloid: '0x000102030405060708090a0b0c0d0e0f', tif: 'Alo', reduceOnly: true, expiresAfter: 1795673453245n };
    expect(roundTrip(all).back).toEqual(all);
    expect(roundTrip({ tif: 'Gtc' }).back).toEqual({ tif: 'Gtc' });
    expect(roundTrip({ expiresAfter: 0n }).back).toEqual({ expiresAfter: 0n });
    expect(roundTrip({ reduceOnly: true }).bytes).toEqual(new Uint8Array([7, 4]));
  });

  it('refuse a flags byte naming nothing or an unknown flag, and a bad cloid or tif', () => {
    expect(() => readOptions(new Reader(new Uint8Array([0])))).toThrow(/flags/);
    expect(() => readOptions(new Reader(new Uint8Array([16])))).toThrow(/flags/);
    expect(() => readOptions(new Reader(new Uint8Array([2, 3])))).toThrow(/time in force/);
    expect(() => writeOptions(new Writer(), { cloid: '0xABCDEF' })).toThrow(/cloid/);
    expect(() => writeOptions(new Writer(), { tif: 'Fok' as never })).toThrow(/tif/);
  });

  it('sign as one text, present keys in a fixed order', () => {
    expect(optionsText(undefined)).toBe('');
    expect(optionsText({})).toBe('');
    expect(optionsText({ expiresAfter: 5n, reduceOnly: true, tif: 'Ioc', cloid: '0x000102030405060708090a0b0c0d0e0f' })).toBe(
      'cloid=0x000102030405060708090a0b0c0d0e0f;tif=Ioc;reduceOnly=true;expiresAfter=5',
    );
    expect(optionsText({ expiresAfter: 5n })).toBe('expiresAfter=5');
  });
});
