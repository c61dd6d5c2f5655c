/**
 * POST /withdraw (native route; DECISIONS): body owner, amount (integer string, USDC
 * units the destination receives), destination, nonce, signature (EIP-712 Withdraw),
 * optional session_key (the signer, when not the owner: refused, a session key can only
 * trade). Answers once final: `{success, status: "requested", withdrawal_id, amount, fee, tx_hash}`.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { NodeApi } from '../node-api';
import { throwIfFailed } from '../final';
import { encodeTx, TxKind } from '../../codec/tx';
import { hashTypedMessage } from '../../crypto/eip712';
import { verifySigner } from '../../crypto/secp256k1';
import { toAddress } from '../../util/bytes';
import { ApiError, errorSchema } from '../envelope';
import { address, nonceSchema, parseNonce, parseSignatureField, signatureSchema } from '../common';

export const withdrawRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  const { genesis } = node;
  app.post<{ Body: { owner: string; amount: string; destination: string; nonce: number | string; signature?: string; session_key?: string } }>('/withdraw', {
    schema: {
      body: {
        type: 'object',
        required: ['owner', 'amount', 'destination', 'nonce'],
        additionalProperties: false,
        properties: {
          owner: address,
          amount: { type: 'string', pattern: '^(0|[1-9][0-9]{0,30})$' },
          destination: address,
          nonce: nonceSchema,
          signature: signatureSchema,
          session_key: address,
        },
      },
      response: { '4xx': errorSchema, '5xx': errorSchema },
    },
    handler: async (req) => {
      const b = req.body;
      const owner = toAddress(b.owner);
      const signer = toAddress(b.session_key ?? b.owner);
      const amount = BigInt(b.amount);
      const destination = toAddress(b.destination);
      if (amount < genesis.fees.minWithdrawalUsdc) throw new ApiError(400, 'BELOW_MINIMUM', `amount: the minimum withdrawal is ${genesis.fees.minWithdrawalUsdc} USDC units`);
      const nonce = parseNonce(b.nonce);
      const signature = parseSignatureField(b.signature);
      const hash = hashTypedMessage(genesis.chainId, 'Withdraw', { owner, amount, destination, nonce } as never);
      if (!verifySigner(hash, signature, signer)) throw new ApiError(401, 'INVALID_SIGNATURE', `signature: does not recover to ${signer}`);
      const final = await node.submitAndWait(encodeTx(genesis.chainId, TxKind.Withdraw, { owner, signer, amount, destination, nonce, signature }), signer);
      throwIfFailed(final);
      const ev = (final.receipt.events as any[]).find((e) => e.type === 'WithdrawalRequested');
      return { success: true, status: 'requested', withdrawal_id: ev.withdrawalId, amount: String(ev.amount), fee: String(ev.fee), tx_hash: final.receipt.txHash };
    },
  });
};
