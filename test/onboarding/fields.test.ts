/**
 * The onboarding form's field checks (src/onboarding/fields.ts): `name` and `endpoint`
 * answer as RegisterValidator's execution does (src/state/ops/validator-registration.ts
 * `registrationShape`, whose checks the form calls), over a grid of good and bad
 * values, so an applicant the form accepts is not refused on-chain for either; the
 * address and email shapes accept and refuse what they say.
 */
import { describe, expect, it } from 'vitest';
import { applicantAddress, checkApplication, emailRefusal, endpointRefusal, nameRefusal } from '../../src/onboarding/fields';
import { TxError } from '../../src/state/errors';
import { genesisParams } from '../../src/state/genesis';
import { registrationShape } from '../../src/state/ops/validator-registration';
import { CANDIDATES, registerBody, testGenesis } from '../validators/harness';

const params = genesisParams(testGenesis());
const k = CANDIDATES[0];

function chainAccepts(fields: { name?: string; endpoint?: string }): boolean {
  try {
    registrationShape(registerBody(k, fields), params);
    return true;
  } catch (err) {
    if (err instanceof TxError && err.code === 'INVALID_VALIDATOR') return false;
    throw err;
  }
}

const NAMES = ['a', 'node-1', 'Node_2', 'n'.repeat(32), 'n'.repeat(33), '', 'my node', 'node.1', 'nöde', 'node\n', '-', '_x_', 'a/b'];
const ENDPOINTS = [
  'node1.example.org:26656',
  '10.0.0.1:9000',
  '[::1]:9000',
  '[2001:db8::1]:65535',
  'host:1',
  'host:0',
  'host:65536',
  'host:099',
  'host',
  ':9000',
  '-host:9000',
  'host-:9000',
  'http://host:9000',
  'host:9000/path',
  'ho st:9000',
  `${'a'.repeat(255)}.org:9000`,
  `${'a'.repeat(260)}:9000`,
];

describe('name and endpoint: the form answers as RegisterValidator', () => {
  it('for every name of the grid', () => {
    let accepted = 0;
    for (const name of NAMES) {
      const form = nameRefusal(name) === null;
      expect(form, JSON.stringify(name)).toBe(chainAccepts({ name }));
      if (form) accepted++;
    }
    expect(accepted).toBeGreaterThan(2);
    expect(accepted).toBeLessThan(NAMES.length);
  });

  it('for every endpoint of the grid', () => {
    let accepted = 0;
    for (const endpoint of ENDPOINTS) {
      const form = endpointRefusal(endpoint) === null;
      expect(form, endpoint.slice(0, 40)).toBe(chainAccepts({ endpoint }));
      if (form) accepted++;
    }
    expect(accepted).toBeGreaterThan(2);
    expect(accepted).toBeLessThan(ENDPOINTS.length);
  });
});

describe('address and email', () => {
  it('the address is 0x and 40 hex, kept lower-case', () => {
    expect(applicantAddress('0x' + 'AbCdEf0123'.repeat(4))).toBe('0x' + 'abcdef0123'.repeat(4));
    for (const bad of ['', '0x', '0x' + 'a'.repeat(39), '0x' + 'a'.repeat(41), 'a'.repeat(42), '0X' + 'a'.repeat(40), '0x' + 'z'.repeat(40), ' 0x' + 'a'.repeat(40)]) {
      expect(() => applicantAddress(bad), bad).toThrow(/address/);
    }
  });

  it('the email has a local part, one @ and a dotted domain', () => {
    for (const good of ['ops@example.org', 'first.last+tag@sub.example.co.uk', 'a@b.io', 'x_y-z@ex-ample.com']) expect(emailRefusal(good), good).toBeNull();
    for (const bad of ['', 'ops', '@example.org', 'ops@', 'ops@example', 'ops@.org', 'ops@example..org', 'ops@-example.org', 'o ps@example.org', 'a@b@example.org', 'ops@exa_mple.org', '<ops>@example.org']) {
      expect(emailRefusal(bad), bad).not.toBeNull();
    }
  });

  it('checkApplication refuses the first bad field in order, naming it, as 400 INVALID_VALIDATOR', () => {
    const good = { address: '0x' + 'ab'.repeat(20), name: 'node-1', endpoint: 'h.example.org:9000', email: 'ops@example.org' };
    expect(checkApplication(good)).toEqual(good);
    const all = { address: 'x', name: ' ', endpoint: 'y', email: 'z' };
    for (const [field, body] of [
      ['address', all],
      ['name', { ...all, address: good.address }],
      ['endpoint', { ...good, endpoint: 'y', email: 'z' }],
      ['email', { ...good, email: 'z' }],
    ] as const) {
      try {
        checkApplication(body);
        expect.unreachable(field);
      } catch (err) {
        expect(err).toBeInstanceOf(TxError);
        expect((err as TxError).status).toBe(400);
        expect((err as TxError).code).toBe('INVALID_VALIDATOR');
        expect((err as TxError).message.startsWith(`${field}:`)).toBe(true);
      }
    }
  });
});
