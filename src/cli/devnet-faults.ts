/**
 * The devnet's fault switches (`--equivocate`, `--claim-ahead`, `--faulty-sync`,
 * `--stall-sync`, tests of the network's defences) as the ByzantineHarness the consensus
 * driver (src/consensus/driver.ts) and the block-sync server (actors/p2p) call where the
 * faults act; the production path passes none. The simulator's Byzantine validator
 * implements the same interface (sim/byzantine.ts).
 */
import { randomBytes } from 'node:crypto';
import { claimAheadStatus, forgeSyncResponse } from '../chain/sync';
import type { ByzantineHarness, HarnessContext } from '../consensus/driver-io';
import { voteSigningHash, type Vote } from '../consensus/messages';
import { sign } from '../crypto/secp256k1';

export interface DevnetFaults {
  /** Sign and send a second, conflicting vote after each vote, with this key (double signing). */
  equivocateWithKey?: Uint8Array;
  /** After each vote, send every validator a status message claiming a height 1,000 ahead (tests of the sync trigger, decision 66). */
  claimAhead?: boolean;
  /** Answer block-sync requests with forged blocks (their commits no longer match). */
  forgeSyncBlocks?: boolean;
  /** Never answer block-sync requests (the asker times out). */
  stallSync?: boolean;
}

/** The harness of the faults switched on, or undefined when none is. */
export function devnetFaultHarness(f: DevnetFaults, chainId: number, maxBlockBytes: number): ByzantineHarness | undefined {
  if (!f.equivocateWithKey && !f.claimAhead && !f.forgeSyncBlocks && !f.stallSync) return undefined;
  const key = f.equivocateWithKey;
  /** After each vote of its own: a conflicting one, and a status claiming a height 1,000 ahead, to every validator. */
  const afterVote = (v: Vote, ctx: HarnessContext) => {
    if (key) {
      const conflicting = { type: v.type, height: v.height, round: v.round, blockHash: randomBytes(32), validator: v.validator };
      ctx.transport.broadcast({ kind: 'vote', vote: { ...conflicting, signature: sign(voteSigningHash(chainId, conflicting), key) } });
    }
    if (f.claimAhead) ctx.transport.broadcast(claimAheadStatus(v.height, ctx.validators().size));
  };
  return {
    broadcast(message, ctx) {
      if (message.kind !== 'vote' || message.vote.validator !== ctx.address) return false;
      // The real vote leaves first; the faults follow it.
      ctx.transport.broadcast(message);
      afterVote(message.vote, ctx);
      return true;
    },
    // Linear votes (decision 174): a vote goes to the round's collector; the faults follow it there too.
    send(to, message, ctx) {
      if (message.kind !== 'vote' || message.vote.validator !== ctx.address) return false;
      ctx.transport.send(to, message);
      afterVote(message.vote, ctx);
      return true;
    },
    serveSync(served) {
      if (f.stallSync) return null;
      return f.forgeSyncBlocks ? forgeSyncResponse(served, maxBlockBytes) : served;
    },
  };
}
