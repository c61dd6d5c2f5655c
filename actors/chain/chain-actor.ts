/**
 * The executor-and-store concern: the only writer of the chain. It applies each
 * finalized block and persists it in one batch, then tells the indexer, the mempool and
 * the API what was committed (the API may hear of a BFT-decided block already once it
 * is applied: ackAtApply). A broken invariant halts the node; it never limps on.
 *
 * Software upgrades (decision 77): a block at or past a scheduled upgrade's height is not
 * executed by a node older than the version it names, whoever hands it over (consensus or
 * block sync); and once the head is the block before that height, the node is told to
 * stop (requireUpgrade) before the commit is answered, so consensus never takes part in
 * the upgrade's height.
 *
 * The reserve check (decision 85) is read after every block: USDC that entered the chain
 * less what left it must equal the vault total. A difference is not a halt (the books are
 * consistent block by block by the invariants; this compares them with the bridge's
 * ledger): it is logged at error when it appears or changes, and /status shows it.
 *
 * A write or an open that LevelDB answers with corruption is not retried: the node halts
 * with the one line saying so, and its store is moved aside and synced again from peers
 * (src/node/store-heal.ts, decision 124).
 */
import { join } from 'node:path';
import { Chain } from '../../src/chain/chain';
import type { BlockResult } from '../../src/state/apply';
import { InvariantError } from '../../src/state/state';
import { isStoreCorruption } from '../../src/storage/corruption';
import { upgradeOf, upgradeStopAt } from '../../src/state/upgrade';
import { reserveCheck } from '../../src/state/bridge';
import type { NodeContext } from '../../src/node/context';
import type { ActorBehavior } from '../actor';
import type { ChainMsg } from './messages';

export interface ChainHolder {
  current?: Chain;
}

export function chainBehavior(node: () => NodeContext, holder: ChainHolder): ActorBehavior<ChainMsg> {
  /** The reserve difference at the last block checked (logged when it changes). */
  let reserveDifference = 0n;
  const checkReserves = (chain: Chain) => {
    const r = reserveCheck(chain.state);
    if (r.difference === reserveDifference) return;
    const fields = { height: chain.height, difference: String(r.difference), vault: String(r.vault), expectedVault: String(r.expectedVault) };
    if (r.difference === 0n) node().log.info(fields, 'reserve check: the vault total equals the USDC issued again');
    else node().log.error(fields, 'reserve check: the vault total differs from the USDC issued (genesis + faucet + credited deposits − paid withdrawals)');
    reserveDifference = r.difference;
  };
  return {
    async start() {
      if (holder.current) return; // opened by the node before the actors start, or by a previous incarnation
      const { config } = node();
      try {
        holder.current = await Chain.open({ dataDir: join(config.dataDir, 'chain'), genesis: config.genesis, genesisHash: config.genesisHash, syncWrites: config.syncWrites });
      } catch (err) {
        // A store found corrupted while the node runs is not reopened again and again: the node stops and heals (src/node/store-heal.ts).
        if (isStoreCorruption(err)) node().halt('the chain store is corrupted', err);
        throw err;
      }
    },
    async handle(msg) {
      const chain = holder.current!;
      const refused = upgradeStopAt(upgradeOf(chain.state), node().version, msg.block.header.height);
      if (refused) {
        node().requireUpgrade(refused);
        msg.reply.reject(new Error(refused));
        return;
      }
      let result: BlockResult;
      try {
        const applied = msg.ackAtApply ? (r: BlockResult) => node().actors.api.send({ type: 'applied', block: msg.block, result: r }) : undefined;
        result = await chain.commit(msg.block, msg.commit, msg.verified, msg.decoded, applied);
      } catch (err) {
        msg.reply.reject(err);
        if (err instanceof InvariantError) {
          node().halt(err.message, err);
          return;
        }
        if (isStoreCorruption(err)) {
          // LevelDB found a damaged block (a read, or a compaction whose error now fails every write): no retry mends that.
          holder.current = undefined;
          await chain.close().catch(() => undefined);
          node().halt('the chain store is corrupted', err);
          return;
        }
        // Storage failed after the state was applied in memory: reload from disk on restart.
        node().log.error(
          { err, height: msg.block.header.height, dataDir: node().config.dataDir },
          'storage: writing the block failed (LevelDB); the chain actor restarts and reloads the chain from disk. If this repeats: check free disk space, the data folder\'s permissions and the disk itself',
        );
        holder.current = undefined;
        await chain.close().catch(() => undefined);
        throw err;
      }
      const next = upgradeStopAt(upgradeOf(chain.state), node().version, chain.height + 1);
      if (next) node().requireUpgrade(next);
      msg.reply.resolve(result);
      checkReserves(chain);
      const { actors, metrics, audit } = node();
      metrics?.blockCommitted(msg.block, msg.commit, result);
      try {
        audit?.blockCommitted({ height: msg.block.header.height, timeMs: msg.block.header.timestampMs, receipts: result.receipts, blockEvents: result.blockEvents }, chain.state);
      } catch (err) {
        // The audit log is a view: a fault in it must not fail the block (committed already) nor restart this actor.
        node().log.error({ err, height: msg.block.header.height }, 'audit log could not read the committed block');
      }
      const event = { type: 'committed' as const, block: msg.block, result };
      actors.indexer.send(event);
      actors.mempool.send(event);
      actors.api.send(event);
    },
    async stop() {
      // The node closes the store after every actor stopped (see Node.stop).
    },
  };
}
