/** The oracle actor's behaviour against a stand-in of its dependencies: what it signs, when, and what it does when refused. */
import { describe, expect, it } from 'vitest';
import { oracleBehavior, type OracleDeps, type OracleStats } from '../../actors/oracle/oracle-actor';
import type { Reply } from '../../actors/actor';
import type { Tx } from '../../src/codec/tx';
import { observationSigningHash, type OracleObservationBody } from '../../src/codec/txs/oracle';
import { recoverSigner } from '../../src/crypto/secp256k1';
import { DevnetPriceSource } from '../../src/oracle/devnet-source';
import { TxError } from '../../src/state/errors';
import type { State } from '../../src/state/state';
import { hexToBytes } from '../../src/util/bytes';
import { createLogger, createMemoryLogger, LOG_LEVEL } from '../../src/util/log';
import { DEVNET_KEYS } from '../helpers/devnet';
import { applyAt, BASE, freshState, observation, px, signers, T0 } from './harness';

const log = createLogger({ destination: 'silent' });
const actorCtx = { log, name: 'oracle', signal: new AbortController().signal };

function standIn(state: State, opts: { network?: 'devnet' | 'testnet'; refuse?: TxError } = {}) {
  const submitted: Tx<OracleObservationBody>[] = [];
  const deps = {
    config: { validatorKey: hexToBytes(DEVNET_KEYS.validators[0].ecdsaPrivateKey), genesis: { ...BASE, network: opts.network ?? 'devnet' } },
    state: () => state,
    actors: {
      mempool: {
        ask: async (make: (r: Reply<unknown>) => { tx: Tx<OracleObservationBody> }) =>
          new Promise((resolve, reject) => {
            const msg = make({ resolve, reject });
            if (opts.refuse) reject(opts.refuse);
            else {
              submitted.push(msg.tx);
              resolve({});
            }
          }),
      },
    },
  } as unknown as OracleDeps;
  return { deps, submitted };
}

describe('oracle actor', () => {
  it('signs one observation per whole second (the one just completed), of every pair in state at the devnet source price, and submits it', async () => {
    const state = freshState([10n ** 25n]);
    const { deps, submitted } = standIn(state);
    let nowMs = 1_795_000_000_123;
    const stats: OracleStats = { submitted: 0, refused: 0, lastTimestampMs: 0, lastError: undefined };
    const b = oracleBehavior(deps, () => ({ send: () => true }), { now: () => nowMs }, stats);
    await b.start!(actorCtx);
    try {
      await b.handle({ type: 'tick' }, actorCtx);
      await b.handle({ type: 'tick' }, actorCtx); // same second: nothing new
      nowMs += 1000;
      await b.handle({ type: 'tick' }, actorCtx);
    } finally {
      await b.stop!(actorCtx);
    }
    expect(submitted.map((t) => t.body.timestampMs)).toEqual([1_794_999_999_000, 1_795_000_000_000]);
    expect(stats).toMatchObject({ submitted: 2, refused: 0, lastTimestampMs: 1_795_000_000_000 });
    const source = DevnetPriceSource.fromGenesis(BASE);
    const pairs = [...BASE.pairs].sort((x, y) => x.id - y.id);
    const body = submitted[0].body;
    expect(body.validator).toBe(signers[0].address);
    expect(body.prices).toEqual(pairs.map((p) => ({ pairId: p.id, price: source.price(p, 1_794_999_999) })));
    expect(recoverSigner(observationSigningHash(BASE.chainId, body), body.signature)).toBe(signers[0].address);
  });

  it('leaves out a pair whose oracle source it does not implement, saying so once (decision 76)', async () => {
    const state = freshState([10n ** 25n]);
    const [first] = [...BASE.pairs].sort((x, y) => x.id - y.id);
    // Pairs as governance adds them: one on the devnet path, one on an external feed this node has no implementation of.
    state.pairs.set('100', { ...first, id: 100, symbol: 'ONPATH', markets: 1, oracleSource: 'devnet-path' });
    state.pairs.set('101', { ...first, id: 101, symbol: 'ONFEED', markets: 2, oracleSource: 'chainlink:onfeed-usd' });
    const { deps, submitted } = standIn(state);
    const memory = createMemoryLogger();
    const ctx = { ...actorCtx, log: memory.log };
    let nowMs = 1_795_000_000_123;
    const b = oracleBehavior(deps, () => ({ send: () => true }), { now: () => nowMs });
    await b.start!(ctx);
    try {
      await b.handle({ type: 'tick' }, ctx);
      nowMs += 1000;
      await b.handle({ type: 'tick' }, ctx);
    } finally {
      await b.stop!(ctx);
    }
    expect(submitted).toHaveLength(2);
    const source = DevnetPriceSource.fromGenesis(BASE);
    for (const t of submitted) {
      const ids = t.body.prices.map((p) => p.pairId);
      expect(ids).toContain(100);
      expect(ids).not.toContain(101);
      expect(ids).toEqual([...BASE.pairs.map((p) => p.id), 100].sort((x, y) => x - y));
    }
    expect(submitted[0].body.prices.find((p) => p.pairId === 100)!.price).toBe(source.price({ id: 100, initialPrice: first.initialPrice }, 1_794_999_999));
    const said = memory.records.filter((r) => r.level === LOG_LEVEL.warn && r.pairId === 101);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({ oracleSource: 'chainlink:onfeed-usd', symbol: 'ONFEED' });
    expect(said[0].msg).toMatch(/no implementation of the oracle source chainlink:onfeed-usd/);
  });

  it('signs only while its address is in the active set, switching as the set changes (no restart)', async () => {
    const state = freshState([10n ** 25n, 10n ** 25n]);
    const { deps, submitted } = standIn(state);
    let nowMs = 1_795_000_000_123;
    const b = oracleBehavior(deps, () => ({ send: () => true }), { now: () => nowMs });
    await b.start!(actorCtx);
    try {
      // Out of the set (as a jailing leaves it, decision 69): the set record without validator 0.
      state.meta.set('activeSet', [{ address: signers[1].address, power: 10n ** 25n }]);
      await b.handle({ type: 'tick' }, actorCtx);
      expect(submitted).toHaveLength(0);
      // Back in (an epoch boundary seats it again): it signs the next second.
      state.meta.set('activeSet', [
        { address: signers[0].address, power: 10n ** 25n },
        { address: signers[1].address, power: 10n ** 25n },
      ].sort((x, y) => (x.address < y.address ? -1 : 1)));
      nowMs += 1000;
      await b.handle({ type: 'tick' }, actorCtx);
    } finally {
      await b.stop!(actorCtx);
    }
    expect(submitted.map((t) => t.body.validator)).toEqual([signers[0].address]);
  });

  it('after a restart it never signs a timestamp the chain already holds for it', async () => {
    const state = freshState([10n ** 25n]);
    applyAt(state, [observation(signers[0], T0 + 5000, px([1, 7n]))], T0 + 5100);
    const { deps, submitted } = standIn(state);
    let nowMs = T0 + 6500;
    const b = oracleBehavior(deps, () => ({ send: () => true }), { now: () => nowMs });
    await b.start!(actorCtx);
    await b.handle({ type: 'tick' }, actorCtx);
    nowMs = T0 + 7000;
    await b.handle({ type: 'tick' }, actorCtx);
    await b.stop!(actorCtx);
    expect(submitted.map((t) => t.body.timestampMs)).toEqual([T0 + 6000]);
  });

  it('a refusal is counted and the actor carries on', async () => {
    const state = freshState([10n ** 25n]);
    const { deps } = standIn(state, { refuse: new TxError(403, 'NOT_VALIDATOR', 'no') });
    const stats: OracleStats = { submitted: 0, refused: 0, lastTimestampMs: 0, lastError: undefined };
    let nowMs = T0 + 10_000;
    const b = oracleBehavior(deps, () => ({ send: () => true }), { now: () => nowMs }, stats);
    await b.start!(actorCtx);
    await b.handle({ type: 'tick' }, actorCtx);
    nowMs += 1000;
    await b.handle({ type: 'tick' }, actorCtx);
    await b.stop!(actorCtx);
    expect(stats).toMatchObject({ submitted: 0, refused: 2, lastError: 'NOT_VALIDATOR: no' });
  });

  it('with lagSeconds 0 it observes the current second', async () => {
    const state = freshState([10n ** 25n]);
    const { deps, submitted } = standIn(state);
    const b = oracleBehavior(deps, () => ({ send: () => true }), { now: () => T0 + 42_999, lagSeconds: 0 });
    await b.start!(actorCtx);
    await b.handle({ type: 'tick' }, actorCtx);
    await b.stop!(actorCtx);
    expect(submitted.map((t) => t.body.timestampMs)).toEqual([T0 + 42_000]);
  });

  it('stays idle on a network without a price source', async () => {
    const state = freshState([10n ** 25n]);
    const { deps, submitted } = standIn(state, { network: 'testnet' });
    let sends = 0;
    const b = oracleBehavior(deps, () => ({ send: () => (sends++, true) }), { now: () => T0 + 1000 });
    await b.start!(actorCtx);
    await b.handle({ type: 'tick' }, actorCtx);
    await b.stop!(actorCtx);
    expect(submitted).toEqual([]);
    expect(sends).toBe(0);
  });
});
