/**
 * POST /faucet {address, amount}: devnet only. Credits `amount` USDC (decimal string,
 * default "1000") and a fixed amount of native token for gas, through consensus like
 * any transaction, answering once final. Bounds per request and per address are
 * genesis parameters enforced by execution.
 */
import { routeSchemas, type RoutePlugin } from '../route-plugin';
import { admitAtDoor } from '../door';
import { throwIfFailed } from '../final';
import { TxKind } from '../../codec/tx';
import { signFaucet } from '../../codec/txs/faucet';
import { hexToBytes, toAddress } from '../../util/bytes';
import { formatDecimal, parseDecimal, NATIVE_DECIMALS, USDC_DECIMALS } from '../../util/decimal';
import { ApiError, errorSchema, ok } from '../envelope';
import { EX } from '../schemas';

/** The schemas of this file's routes by method and path (src/api/route-table.ts). */
export const faucetSchemas = routeSchemas({
  'POST /faucet': {
    body: {
      type: 'object',
      required: ['address'],
      additionalProperties: false,
      properties: {
        address: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
        amount: { type: 'string', maxLength: 40 },
        network: { type: 'string' },
      },
      examples: [{ address: EX.address, amount: '1000' }],
    },
    tags: ['faucet'],
    summary: 'Test USDC and native token (devnet)',
    description: 'Credits `amount` USDC (decimal string, default "1000") and a fixed amount of native token for gas, through consensus like any transaction; answers once final. Bounds per request and per address are genesis parameters enforced by execution. Served only where the genesis has a faucet.',
    response: {
      200: {
        examples: [{ success: true, data: { address: EX.address, amount: '1000', nativeAmount: '1', txHash: EX.hash, height: 1024, blockHash: EX.hash }, timestamp: EX.timestampMs }],
        type: 'object',
        required: ['success', 'data', 'timestamp'],
        properties: {
          success: { type: 'boolean' },
          timestamp: { type: 'integer' },
          data: {
            type: 'object',
            required: ['address', 'amount', 'nativeAmount', 'txHash', 'height'],
            properties: {
              address: { type: 'string' },
              amount: { type: 'string' },
              nativeAmount: { type: 'string' },
              txHash: { type: 'string' },
              height: { type: 'integer' },
              blockHash: { type: 'string' },
            },
          },
        },
      },
      '4xx': errorSchema,
      '5xx': errorSchema,
    },
  },
});

export const faucetRoutes: RoutePlugin = async (app, { node }) => {
  const { genesis } = node;
  const faucet = genesis.faucet!;
  const key = hexToBytes(faucet.privateKey);
  let lastNonce = 0n;
  const me = node.validatorAddress;
  const nodeSlot = BigInt(Math.max(0, genesis.validators.findIndex((v) => v.address === me)) % 100);

  app.post('/faucet', {
    schema: faucetSchemas['POST /faucet'],
    handler: async (req) => {
      const to = toAddress(req.body.address);
      const usdc = parseDecimal(req.body.amount ?? '1000', USDC_DECIMALS);
      if (usdc === null || usdc === 0n) {
        throw new ApiError(400, 'INVALID_AMOUNT', 'amount: must be a positive decimal string with at most 6 decimals');
      }
      // Unique, increasing nonces for the faucet signer (millisecond timestamps, contract [D-nonces-window]; decisions 52, 97).
      // Every validator of the network signs with the one faucet key: the last two digits are
      // this node's own (its validator index mod 100), so two nodes never pick the same nonce,
      // and the nonce stays within 100 ms of the clock, inside the window a timestamp nonce
      // must lie in (block time − 2 days, block time + 1 day). More than ten claims a second
      // on one node run ahead of the clock by 100 ms a claim (the per-IP rate limit bounds it).
      const now = (BigInt(Date.now()) / 100n) * 100n + nodeSlot;
      lastNonce = now > lastNonce ? now : lastNonce + 100n;
      const unsigned = { to, usdc, nativeWei: faucet.nativeWeiPerRequest, nonce: lastNonce };
      const body = signFaucet(genesis.chainId, unsigned, key);
      // The per-request bound (400) and the faucet's key (403) are the operation's (src/state/ops/faucet-credit.ts).
      const { tx, signer } = admitAtDoor(node.chain().state, TxKind.Faucet, { signature: body.signature, signers: [faucet.address], body: () => body });
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      return ok({
        address: to,
        amount: formatDecimal(usdc, USDC_DECIMALS),
        nativeAmount: formatDecimal(faucet.nativeWeiPerRequest, NATIVE_DECIMALS),
        txHash: final.receipt.txHash,
        height: final.height,
        blockHash: final.blockHash,
      });
    },
  });
};
