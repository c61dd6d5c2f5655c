/**
 * The JSON form of governance operations (src/codec/txs/governance-json.ts; decision 80):
 * every kind round-trips through JSON text to the same operation and the same canonical
 * encoding, and bad input (unknown kind or field, missing field, a value of the wrong
 * form) is refused with a message naming what is wrong.
 */
import { describe, expect, it } from 'vitest';
import { GOV_OP_NAMES, GovOpKind, GovParam, operationBytes, type GovOperation } from '../../src/codec/txs/governance';
import { GOV_JSON_KINDS, GovJsonError, operationFromJson, operationFromJsonText, operationToJson } from '../../src/codec/txs/governance-json';
import { bytesToHex } from '../../src/util/bytes';

const SEED: GovOperation = {
  kind: GovOpKind.AdminSeedValidator,
  validator: '0x0cc0eda6ac388c32234b5b07e7b42a8a0a223430',
  name: 'seventh',
  endpoint: '127.0.0.1:9060',
  ecdsaPubkey: `0x02${'ab'.repeat(32)}`,
  vrfPubkey: `0x${'cd'.repeat(32)}`,
  bondWei: 12345678901234567890123456789n,
  funder: '0x2e66ecdc97b12161054e1a6b0012709daf39e2ff',
  candidateSignature: `0x${'ee'.repeat(65)}`,
};

const EXAMPLES: GovOperation[] = [
  { kind: GovOpKind.SetParam, param: GovParam.MakerFeeBps, value: 5n },
  { kind: GovOpKind.SetParam, param: GovParam.MinWithdrawalUsdc, value: 2n ** 70n },
  { kind: GovOpKind.Halt },
  { kind: GovOpKind.Resume },
  SEED,
  { kind: GovOpKind.SoftwareUpgrade, version: '0.2.0', height: 1_000 },
  { kind: GovOpKind.SetOperator, operator: '0x2e66ecdc97b12161054e1a6b0012709daf39e2ff' },
  { kind: GovOpKind.SetParam, param: GovParam.MinBondWei, value: 10n ** 21n },
  {
    kind: GovOpKind.AddPair,
    pair: { id: 100, symbol: 'PEPE', tickSize: 1_000n, lotSize: 10n ** 16n, minSize: 10n ** 16n, maxLeverage: 10, maintenanceMarginBps: 500, openInterestCapBps: 2_000, initialPrice: 2_000_000n, markets: 2, oracleSource: 'chainlink:pepe-usd' },
  },
  { kind: GovOpKind.SetOwners, owners: ['0x2e66ecdc97b12161054e1a6b0012709daf39e2ff', '0x00000000000000000000000000000000000000aa', '0x00000000000000000000000000000000000000bb'] },
];

describe('the JSON form of governance operations', () => {
  it('covers every operation kind', () => {
    expect([...GOV_JSON_KINDS].sort()).toEqual(Object.values(GOV_OP_NAMES).sort());
    expect(new Set(EXAMPLES.map((o) => o.kind))).toEqual(new Set(Object.values(GovOpKind).filter((v) => typeof v === 'number')));
  });

  it('round-trips every kind through JSON text to the same operation and encoding', () => {
    for (const op of EXAMPLES) {
      const text = JSON.stringify(operationToJson(op));
      const back = operationFromJsonText(text);
      expect(back).toEqual(op);
      expect(bytesToHex(operationBytes(back))).toBe(bytesToHex(operationBytes(op)));
    }
  });

  it('writes the names and forms the governance route shows', () => {
    expect(operationToJson(EXAMPLES[0])).toEqual({ kind: 'SetParam', param: 'fees.makerFeeBps', value: '5' });
    expect(operationToJson({ kind: GovOpKind.Halt })).toEqual({ kind: 'Halt' });
    expect(operationToJson(SEED)).toEqual({
      kind: 'AdminSeedValidator',
      validator: SEED.validator,
      name: 'seventh',
      endpoint: '127.0.0.1:9060',
      ecdsaPubkey: SEED.ecdsaPubkey,
      vrfPubkey: SEED.vrfPubkey,
      bond: '12345678901234567890123456789',
      funder: SEED.funder,
      candidateSignature: `0x${'ee'.repeat(65)}`,
    });
  });

  it('reads hex in any case and writes it in lower case', () => {
    const json = { ...operationToJson(SEED), validator: SEED.validator.toUpperCase().replace('0X', '0x'), ecdsaPubkey: SEED.ecdsaPubkey.toUpperCase().replace('0X', '0x') };
    expect(operationFromJson(json)).toEqual(SEED);
  });

  it('refuses bad input, naming what is wrong', () => {
    const bad: [unknown, RegExp][] = [
      [null, /^operation: must be a JSON object/],
      [[], /^operation: must be a JSON object/],
      [{}, /^kind: required, one of SetParam, Halt, Resume, AdminSeedValidator/],
      [{ kind: 'Mint' }, /^kind: unknown operation kind "Mint" \(known: SetParam, Halt/],
      [{ kind: 1 }, /^kind: required/],
      [{ kind: 'Halt', reason: 'x' }, /^reason: unknown field of Halt \(its fields: none\)/],
      [{ kind: 'SetParam', param: 'fees.makerFeeBps' }, /^value: required field of SetParam is missing/],
      [{ kind: 'SetParam', param: 'fees.gasPriceWei', value: '1' }, /^param: unknown parameter "fees.gasPriceWei" \(known: fees.makerFeeBps/],
      [{ kind: 'SetParam', param: 'fees.makerFeeBps', value: 5 }, /^value: must be a decimal string/],
      [{ kind: 'SetParam', param: 'fees.makerFeeBps', value: '-5' }, /^value: must be a decimal string/],
      [{ kind: 'SetParam', param: 'fees.makerFeeBps', value: '1e3' }, /^value: must be a decimal string/],
      [{ kind: 'SetParam', param: 'fees.makerFeeBps', value: '007' }, /^value: must be a decimal string/],
      [{ kind: 'SetParam', param: 'fees.makerFeeBps', value: '5', values: '6' }, /^values: unknown field of SetParam \(its fields: param, value\)/],
      [{ ...operationToJson(SEED), validator: '0x1234' }, /^validator: must be 0x and 40 hex digits/],
      [{ ...operationToJson(SEED), ecdsaPubkey: `0x${'ab'.repeat(32)}` }, /^ecdsaPubkey: must be 66 hex digits \(0x optional\)/],
      [{ ...operationToJson(SEED), vrfPubkey: 'cd'.repeat(31) }, /^vrfPubkey: must be 64 hex digits \(0x optional\)/],
      [{ ...operationToJson(SEED), name: 7 }, /^name: must be a string/],
      [{ ...operationToJson(SEED), bondWei: '1' }, /^bondWei: unknown field of AdminSeedValidator/],
      [{ ...operationToJson(SEED), candidateSignature: '0xee' }, /^candidateSignature: must be 128 or 130 hex digits/],
      [{ kind: 'SetOperator' }, /^operator: required field of SetOperator is missing/],
      [{ kind: 'SoftwareUpgrade', version: '0.2.0', height: '1000' }, /^height: must be a non-negative integer/],
      [{ kind: 'SoftwareUpgrade', version: '0.2.0', height: 1.5 }, /^height: must be a non-negative integer/],
    ];
    for (const [json, message] of bad) {
      expect(() => operationFromJson(json), JSON.stringify(json)).toThrow(GovJsonError);
      expect(() => operationFromJson(json), JSON.stringify(json)).toThrow(message);
    }
    expect(() => operationFromJsonText('{"kind":')).toThrow(/^operation: invalid JSON/);
    // Keys as `init` prints them (bare hex, the contract's form) read as the same operation.
    const bare = { ...operationToJson(SEED), ecdsaPubkey: SEED.ecdsaPubkey.slice(2).toUpperCase(), vrfPubkey: SEED.vrfPubkey.slice(2) };
    expect(operationFromJson(bare)).toEqual(SEED);
  });
});
