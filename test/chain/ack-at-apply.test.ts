/**
 * Decision 63: a block decided by BFT consensus is answered once applied in memory,
 * before it is on this node's disk. Shown with the store's write held back on purpose:
 *  - Chain.commit calls onApplied with the block applied (state head moved) while the
 *    store does not have the block yet; Chain.stored() waits for the write;
 *  - the chain actor sends the API 'applied' before the write only when the commit asks
 *    for it (ackAtApply), and 'committed' to the API, indexer and mempool after it.
 */
import { describe, expect, it } from 'vitest';
import { chainBehavior, type ChainDeps } from '../../actors/chain/chain-actor';
import type { ChainMsg } from '../../actors/chain/messages';
import type { ActorContext } from '../../actors/actor';
import type { BlockResult } from '../../src/state/apply';
import { bytesToHex } from '../../src/util/bytes';
import { createLogger } from '../../src/util/log';
import { NODE_VERSION } from '../../src/util/version';
import { commitOf, faucetTxs, useTempChains } from './fixture';

describe('answers at apply time (decision 63)', () => {
  const chains = useTempChains('ack-at-apply-');

  /** A chain whose store writes wait for release(); a block with one faucet transaction. */
  const setup = async () => {
    const [tx] = faucetTxs([1n]);
    const { chain, block } = await chains.open([tx]);
    const write = chain.store.commitBlock.bind(chain.store);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    chain.store.commitBlock = async (c) => {
      await held;
      return write(c);
    };
    return { chain, block, txHash: bytesToHex(tx.hash), release };
  };

  it('Chain.commit: onApplied sees the block applied and not yet stored; stored() waits for the write', async () => {
    const { chain, block, txHash, release } = await setup();
    const seen: { head: number; storedHeight: number }[] = [];
    let appliedResult: BlockResult | undefined;
    const done = chain.commit(block, commitOf(block), undefined, undefined, (r) => {
      appliedResult = r;
      seen.push({ head: chain.state.head().height, storedHeight: chain.height });
    });
    await new Promise((r) => setTimeout(r, 30));
    expect(seen).toEqual([{ head: 1, storedHeight: 0 }]);
    expect(await chain.store.getTxLocation(txHash)).toBeUndefined();
    let storedDone = false;
    const stored = chain.stored().then(() => (storedDone = true));
    await new Promise((r) => setTimeout(r, 30));
    expect(storedDone).toBe(false);
    release();
    await stored;
    expect(await chain.store.getTxLocation(txHash)).toMatchObject({ height: 1, index: 0 });
    const result = await done;
    expect(appliedResult).toBe(result);
    expect(chain.height).toBe(1);
  });

  it('the chain actor tells the API at apply time only when asked (ackAtApply), everyone once the block is stored', async () => {
    for (const ackAtApply of [true, false]) {
      const { chain, block, release } = await setup();
      const sent: string[] = [];
      const actor = (name: string) => ({ send: (m: { type: string }) => (sent.push(`${name}:${m.type}`), true) });
      const log = createLogger({ destination: 'silent' });
      const deps = {
        config: {},
        log,
        holder: { current: chain },
        version: NODE_VERSION,
        indexer: () => undefined,
        snapshots: () => undefined,
        halt: () => undefined,
        requireUpgrade: () => undefined,
        actors: { api: actor('api'), indexer: actor('indexer'), mempool: actor('mempool'), chain: actor('chain') },
      } as unknown as ChainDeps;
      const behavior = chainBehavior(deps);
      const ctx: ActorContext = { log, name: 'chain', signal: new AbortController().signal };
      let answered = false;
      const reply = { resolve: () => (answered = true), reject: (e: unknown) => Promise.reject(e) };
      const handled = behavior.handle({ type: 'commit', block, commit: commitOf(block), ackAtApply, reply } as ChainMsg, ctx);
      await new Promise((r) => setTimeout(r, 30));
      expect(sent).toEqual(ackAtApply ? ['api:applied'] : []);
      expect(answered).toBe(false);
      release();
      await handled;
      expect(answered).toBe(true);
      expect(sent).toEqual([...(ackAtApply ? ['api:applied'] : []), 'indexer:committed', 'mempool:committed', 'api:committed']);
    }
  });
});
