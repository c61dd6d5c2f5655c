/**
 * SoftwareUpgrade (governance kind 7; decision 77): semver comparison, the codec, the
 * shape and height checks, the high-impact timelock, execution's meta record, and the
 * stop decision (upgradeStopAt) as a pure function.
 */
import { describe, expect, it } from 'vitest';
import { decodeTx } from '../../src/codec/tx';
import { GovOpKind, operationBytes, readOperation, type GovOperation } from '../../src/codec/txs/governance';
import { Reader } from '../../src/codec/binary';
import { compareVersions, isVersion, upgradeOf, upgradeStopAt, UPGRADE_VERSION_MAX_CHARS } from '../../src/state/governance/upgrade';
import { failure, GovChain, HIGH_IMPACT_MS, OWNERS } from './harness';

const upgrade = (version: string, height: number): GovOperation => ({ kind: GovOpKind.SoftwareUpgrade, version, height });

describe('versions', () => {
  it('accepts semantic versions of bounded length and nothing else', () => {
    for (const v of ['0.1.0', '1.2.3', '10.20.30', '1.0.0-rc.1', '1.0.0-alpha-1.2+build.5', '2.0.0+sha.abc']) expect(isVersion(v), v).toBe(true);
    for (const v of ['', '1', '1.2', 'v1.2.3', '01.2.3', '1.2.3.4', '1.2.3-', '1.2.3-01', '1.2.3 ', '1.2.x', `1.2.3-${'a'.repeat(UPGRADE_VERSION_MAX_CHARS)}`]) {
      expect(isVersion(v), v).toBe(false);
    }
  });

  it('orders by semver precedence', () => {
    const ascending = ['0.9.9', '0.10.0', '1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '1.0.1', '1.10.0', '2.0.0'];
    for (let i = 0; i < ascending.length; i++) {
      for (let j = 0; j < ascending.length; j++) expect(Math.sign(compareVersions(ascending[i], ascending[j])), `${ascending[i]} vs ${ascending[j]}`).toBe(Math.sign(i - j));
    }
    expect(compareVersions('1.2.3+a', '1.2.3+b')).toBe(0);
    expect(compareVersions('99999999999999999999.0.0', '9.0.0')).toBeGreaterThan(0);
    expect(() => compareVersions('1.2', '1.2.3')).toThrow(/not a semantic version/);
  });
});

describe('the stop decision', () => {
  const rec = { version: '0.2.0', height: 100, operationId: `0x${'ab'.repeat(32)}` as const };
  it('stops an older node from the height on, naming the version to install', () => {
    expect(upgradeStopAt(undefined, '0.1.0', 500)).toBeUndefined();
    expect(upgradeStopAt(rec, '0.1.0', 99)).toBeUndefined();
    expect(upgradeStopAt(rec, '0.1.0', 100)).toMatch(/from height 100 .*version 0\.2\.0 or newer.*this node is version 0\.1\.0.*Install version 0\.2\.0/);
    expect(upgradeStopAt(rec, '0.2.0-rc.1', 101)).toMatch(/Install version 0\.2\.0/);
    expect(upgradeStopAt(rec, 'dev', 100)).toMatch(/this node is version dev/);
  });
  it('lets the named version and newer ones go on', () => {
    for (const v of ['0.2.0', '0.2.0+local', '0.2.1', '1.0.0']) expect(upgradeStopAt(rec, v, 100), v).toBeUndefined();
  });
});

describe('the SoftwareUpgrade operation', () => {
  it('round-trips through the codec', () => {
    const op = upgrade('1.2.3-rc.1+b7', 123_456);
    expect(readOperation(new Reader(operationBytes(op)))).toEqual(op);
    const c = new GovChain();
    expect((decodeTx(c.propose(OWNERS[0], op).tx.bytes, 1 << 16).body as { operation: GovOperation }).operation).toEqual(op);
  });

  it('refuses a malformed version or a height not above the proposing block', () => {
    const c = new GovChain();
    c.block([]);
    const head = c.state.head().height;
    for (const op of [upgrade('v1', head + 10), upgrade('1.0', head + 10), upgrade('1.0.0', head + 1), upgrade('1.0.0', 0)]) {
      const r = c.one(c.propose(OWNERS[0], op).tx);
      expect(failure(r), JSON.stringify(op)).toEqual({ status: 400, code: 'INVALID_OPERATION' });
    }
    expect(c.state.governance.sortedKeys()).toEqual([]);
  });

  it('waits the high-impact timelock, then schedules the upgrade in the meta record', () => {
    const c = new GovChain();
    const { tx, id } = c.propose(OWNERS[0], upgrade('0.2.0', 1_000));
    expect(c.one(tx).status).toBe('ok');
    const approvedAt = c.timeMs + 1_000;
    expect(c.one(c.approve(OWNERS[1], id), approvedAt).status).toBe('ok');
    expect(c.state.governance.get(id)!.context.timelockMs).toBe(HIGH_IMPACT_MS);
    expect(failure(c.one(c.execute(OWNERS[1], id), approvedAt + HIGH_IMPACT_MS - 1))).toEqual({ status: 422, code: 'TIMELOCK_NOT_PASSED' });
    expect(upgradeOf(c.state)).toBeUndefined();
    expect(c.one(c.execute(OWNERS[2], id), approvedAt + HIGH_IMPACT_MS).status).toBe('ok');
    expect(upgradeOf(c.state)).toEqual({ version: '0.2.0', height: 1_000, operationId: id });
  });

  it('is refused at execution once its height is reached, and the state is left as it was', () => {
    const c = new GovChain();
    const target = c.state.head().height + 5;
    const { tx, id } = c.propose(OWNERS[0], upgrade('0.2.0', target));
    c.one(tx);
    c.one(c.approve(OWNERS[1], id));
    const readyAt = c.state.governance.get(id)!.context.readyAtMs;
    while (c.state.head().height < target - 1) c.block([], c.timeMs + 20_000);
    // This block is at the upgrade's height, after the timelock: too late to schedule it.
    const r = c.one(c.execute(OWNERS[1], id), Math.max(readyAt, c.timeMs + 1_000));
    expect(c.state.head().height).toBe(target);
    expect(failure(r)).toEqual({ status: 400, code: 'INVALID_OPERATION' });
    expect(r.message).toMatch(/upgrade height \d+ is not above the current height/);
    expect(upgradeOf(c.state)).toBeUndefined();
    expect(c.state.governance.get(id)!.state).toBe('approved');
  });
});
