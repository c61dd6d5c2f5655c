/**
 * The audit log and the instances list against real execution, in process without a
 * node (src/audit/transitions.ts, src/audit/instances.ts): a RegisterValidator, which
 * emits no event, is recorded from the validator's status read across its block, with
 * its transaction as the cause; the first block seen records no validator (nothing to
 * compare with); the consensus round appears only in a step of its machine.
 */
import { describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/audit/transitions';
import { listInstances } from '../../src/audit/instances';
import { applyNext, CANDIDATES, freshState, register, TOKEN } from '../validators/harness';
import type { State } from '../../src/state/state';
import type { BlockResult } from '../../src/state/apply';

function feed(log: AuditLog, state: State, result: BlockResult): void {
  const head = state.head();
  log.blockCommitted({ height: head.height, timeMs: head.timestampMs, receipts: result.receipts, blockEvents: result.blockEvents }, state);
}

describe('AuditLog from executed blocks', () => {
  it('records a validator registered (no event) from its status across the block, with the transaction as cause', () => {
    const state = freshState();
    const log = new AuditLog();
    feed(log, state, applyNext(state));
    expect(log.recorded).toBe(0); // the genesis validators are the baseline, not transitions
    const alice = CANDIDATES[0];
    const result = applyNext(state, [register(alice, { name: 'alice_01', bond: 7_000n * TOKEN })]);
    expect(result.receipts[0].status).toBe('ok');
    feed(log, state, result);
    expect(log.recent({ machine: 'validator-lifecycle', id: alice.address.toLowerCase(), limit: 5 })).toEqual([
      {
        seq: 1,
        machine: 'validator-lifecycle',
        id: alice.address.toLowerCase(),
        from: null,
        to: 'registered',
        height: state.head().height,
        timeMs: state.head().timestampMs,
        cause: { txHash: result.receipts[0].txHash, txKind: 'RegisterValidator', event: 'status' },
        addresses: [alice.address.toLowerCase()],
      },
    ]);
    feed(log, state, applyNext(state));
    expect(log.recorded).toBe(1); // an unchanged status records nothing
    const listed = listInstances(state, { actors: {}, consensus: null }, { machine: 'validator-lifecycle', address: alice.address, offset: 0, limit: 10 });
    expect(listed.items).toEqual([expect.objectContaining({ state: 'registered', stateIds: ['validator-lifecycle.registered'], label: 'validator alice_01' })]);
  });
});

describe('instances of the node itself', () => {
  it('lists the consensus round in a step of its machine, none while block-syncing', () => {
    const state = freshState();
    const at = (step: string) => listInstances(state, { actors: {}, consensus: { height: 7, round: 1, step } }, { machine: 'consensus-round', offset: 0, limit: 10 }).items;
    expect(at('Prevote')).toEqual([{ machine: 'consensus-round', id: 'this node', label: 'height 7 round 1', state: 'Prevote', stateIds: ['consensus-round.Prevote'], addresses: [] }]);
    expect(at('Syncing')).toEqual([]);
    const actors = listInstances(state, { actors: { chain: { status: 'backoff' }, api: { status: 'running' } }, consensus: null }, { machine: 'actor-lifecycle', offset: 0, limit: 10 }).items;
    expect(actors.map((a) => [a.id, a.state, a.stateIds])).toEqual([['chain', 'backoff', ['actor-lifecycle.backoff']], ['api', 'running', ['actor-lifecycle.running']]]);
  });
});
