/** GET /block/{height}: a committed block's header, its tx hashes, and the state root after it. */
import type { RoutePlugin } from '../route-plugin';
import { blockHash } from '../../codec/block';
import { decodeTx } from '../../codec/tx';
import { bytesToHex } from '../../util/bytes';
import { ApiError, errorSchema, ok } from '../envelope';
import { refusePrunedHeight } from '../pruned';
import { pathParams } from '../common';
import { addr, arr, envelope, EX, hex, int, nullable, obj } from '../schemas';

const blockSchema = obj({
  height: int(),
  hash: hex(),
  timestampMs: int('Block time.'),
  round: int('The consensus round it was decided in.'),
  parentHash: hex(),
  parentStateRoot: hex(),
  validatorsHash: hex('keccak256 of the encoded validator set that signs this height (decision 128).'),
  stateRoot: hex('State root after this block.'),
  proposer: addr(),
  txRoot: hex(),
  lastCommit: nullable(obj({ round: int(), signers: arr(addr(), 'Validators whose precommit for the parent block is recorded.') })),
  transactions: arr(hex(), 'Transaction hashes, in block order.'),
});

export const blockRoutes: RoutePlugin = async (app, { node }) => {
  app.get('/block/:height', {
    schema: {
      tags: ['chain'],
      summary: 'A committed block',
      description: 'Its header, transaction hashes and the state root after it. `height`: a non-negative integer (at most 15 digits); 404 NOT_FOUND above the head; 410 PRUNED below the lowest height this node keeps (`error.details.lowestHeight`).',
      params: pathParams({ height: { type: 'string', description: 'Block height, 1 to the head.', examples: ['1'] } }),
      response: {
        200: envelope(blockSchema, { height: 1, hash: EX.hash, timestampMs: EX.timestampMs, round: 0, parentHash: EX.hash, parentStateRoot: EX.hash, validatorsHash: EX.hash, stateRoot: EX.hash, proposer: EX.address, txRoot: EX.hash, lastCommit: null, transactions: [EX.hash] }),
        '4xx': errorSchema,
        '5xx': errorSchema,
      },
    },
    handler: async (req) => {
      if (!/^[0-9]{1,15}$/.test(req.params.height)) throw new ApiError(400, 'INVALID_REQUEST', 'height: must be a non-negative integer');
      const height = Number(req.params.height);
      const chain = node.chain();
      if (height <= chain.height) await refusePrunedHeight(chain.store, height, 'the block');
      const block = height >= 1 && height <= chain.height ? await chain.store.getBlock(height) : undefined;
      if (!block) throw new ApiError(404, 'NOT_FOUND', `no committed block at height ${height}`);
      const h = block.header;
      const maxTx = node.genesis.consensus.maxTxBytes;
      return ok({
        height: h.height,
        hash: bytesToHex(blockHash(h)),
        timestampMs: h.timestampMs,
        round: h.round,
        parentHash: bytesToHex(h.parentHash),
        parentStateRoot: bytesToHex(h.parentStateRoot),
        validatorsHash: bytesToHex(h.validatorsHash),
        stateRoot: bytesToHex((await chain.store.getStateRoot(height))!),
        proposer: h.proposer,
        txRoot: bytesToHex(h.txRoot),
        // Who signed the parent block's commit (the record of which validators took part).
        lastCommit: block.lastCommit ? { round: block.lastCommit.round, signers: block.lastCommit.signatures.map((s) => s.validator) } : null,
        transactions: block.txs.map((t) => bytesToHex(decodeTx(t, maxTx).hash)),
      });
    },
  });
};
