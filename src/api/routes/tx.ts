/**
 * Raw transactions in the chain's canonical envelope:
 * POST /tx {tx: "0x…"} submits one and answers once it is final (or refused at the door);
 * GET /tx/{hash} answers its receipt and block.
 */
import type { RoutePlugin } from '../route-plugin';
import { throwIfFailed } from '../final';
import { hexToBytes, isHex } from '../../util/bytes';
import { ApiError, errorSchema, ok } from '../envelope';
import { lowestHeight } from '../pruned';
import { pathParams, plainJson } from '../common';
import { TX_BODY_MAX_BYTES } from '../limits';
import { envelope, EX, hex, int, openObj, obj } from '../schemas';

const receiptSchema = openObj('The receipt: txHash, index, kind, signer, status ("ok" or "failed"), code and message when failed, and the events it emitted (bigints as decimal strings).', {
  txHash: hex(), index: int(), kind: { type: 'string' }, status: { type: 'string', enum: ['ok', 'failed'] }, events: { type: 'array', items: { type: 'object', additionalProperties: true } },
});
const receiptExample = { txHash: EX.hash, index: 0, kind: 'Faucet', signer: EX.address, status: 'ok', events: [] };


export const txRoutes: RoutePlugin = async (app, { node }) => {
  app.post('/tx', {
    schema: {
      body: {
        type: 'object',
        required: ['tx'],
        additionalProperties: false,
        properties: { tx: { type: 'string', pattern: '^0x([0-9a-fA-F]{2})+$', maxLength: 2 + 2 * TX_BODY_MAX_BYTES, description: 'The signed transaction in the canonical envelope, hex.' } },
        examples: [{ tx: '0x0201f86b8302ae47018203e8' }],
      },
      tags: ['chain'],
      summary: 'Submit a raw signed transaction',
      description: 'Answers once the transaction is final (or refused at the door). A final but failed transaction answers with the status and code of its refusal.',
      response: {
        200: envelope(obj({ txHash: hex(), height: int(), blockHash: hex(), receipt: receiptSchema }), { txHash: EX.hash, height: 1024, blockHash: EX.hash, receipt: receiptExample }),
        '4xx': errorSchema,
        '5xx': errorSchema,
      },
    },
    handler: async (req) => {
      const final = await node.submitAndWait(hexToBytes(req.body.tx));
      throwIfFailed(final);
      return ok({ txHash: final.receipt.txHash, height: final.height, blockHash: final.blockHash, receipt: plainJson(final.receipt) });
    },
  });

  app.get('/tx/:hash', {
    schema: {
      tags: ['chain'],
      summary: 'A committed transaction\u2019s receipt',
      description: '`hash`: 0x plus 64 hex characters; 404 NOT_FOUND until it is in a committed block. A node that prunes keeps no index of the transactions of pruned blocks: its 404 then carries `error.details.lowestHeight`, the lowest height it keeps (the transaction may lie below it).',
      params: pathParams({ hash: { type: 'string', description: 'Transaction hash.', examples: [EX.hash] } }),
      response: { 200: envelope(obj({ height: int(), index: int('Position in the block.'), receipt: receiptSchema }), { height: 1024, index: 0, receipt: receiptExample }), '4xx': errorSchema, '5xx': errorSchema },
    },
    handler: async (req) => {
      const { hash } = req.params;
      if (!isHex(hash, 32)) throw new ApiError(400, 'INVALID_REQUEST', 'hash: must be 0x plus 64 hex characters');
      const chain = node.chain();
      const loc = await chain.store.getTxLocation(hash.toLowerCase());
      if (!loc) {
        const base = await lowestHeight(chain.store);
        if (base > 1) throw new ApiError(404, 'NOT_FOUND', `transaction ${hash} is not in a block this node keeps (from height ${base} on; older blocks are pruned)`, undefined, { lowestHeight: base });
        throw new ApiError(404, 'NOT_FOUND', `transaction ${hash} is not in a committed block`);
      }
      const receipts = await chain.store.getReceipts(loc.height);
      return ok({ height: loc.height, index: loc.index, receipt: plainJson(receipts![loc.index]) });
    },
  });
};
