/**
 * POST /withdraw (native route; contract [D-vault-withdraw]): body owner, amount (integer string, USDC
 * units the destination receives), destination, nonce, signature (EIP-712 Withdraw),
 * optional session_key (the signer, when not the owner: refused, a session key can only
 * trade). Answers once final: `{success, status: "requested", withdrawal_id, amount, fee, tx_hash}`.
 */
import { routeSchemas, type RoutePlugin } from '../route-plugin';
import { admitAtDoor } from '../door';
import { expiresAfterSchema, expiryOf } from '../expires-after';
import { eventOf, throwIfFailed } from '../final';
import { TxKind } from '../../codec/tx';
import { toAddress } from '../../util/bytes';
import { errorSchema } from '../envelope';
import { address, nonceSchema, parseNonce, signatureSchema } from '../common';
import { dec, EX, hex, obj, reply, str } from '../schemas';

/** The schemas of this file's routes by method and path (src/api/route-table.ts). */
export const withdrawSchemas = routeSchemas({
  'POST /withdraw': {
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
        expiresAfter: expiresAfterSchema,
      },
      examples: [{ owner: EX.owner, amount: '5000000', destination: EX.address, nonce: 1, signature: EX.signature }],
    },
    tags: ['bridge'],
    summary: 'Withdraw USDC to the external chain',
    description: 'Owner-signed (EIP-712 Withdraw); a session key is refused 403 OWNER_ONLY. `amount`: integer string of USDC base units the destination receives; the fee is on top. Answers once final; validators then sign it for the bridge contract.',
    response: {
      200: reply(obj({ success: { type: 'boolean', const: true }, status: str('requested'), withdrawal_id: dec(), amount: dec(), fee: dec(), tx_hash: hex() }), { success: true, status: 'requested', withdrawal_id: '1', amount: '5000000', fee: '1000000', tx_hash: EX.hash }),
      '4xx': errorSchema,
      '5xx': errorSchema,
    },
  },
});

export const withdrawRoutes: RoutePlugin = async (app, { node }) => {
  app.post('/withdraw', {
    schema: withdrawSchemas['POST /withdraw'],
    handler: async (req) => {
      const b = req.body;
      const owner = toAddress(b.owner);
      const signer = toAddress(b.session_key ?? b.owner);
      const amount = BigInt(b.amount);
      const destination = toAddress(b.destination);
      const nonce = parseNonce(b.nonce);
      // The minimum (400), the signature (401) and owner-only (403: a session key can only trade) are the operation's (src/state/ops/withdrawal-request.ts).
      const { tx } = admitAtDoor(node.chain().state, TxKind.Withdraw, { signature: b.signature, signers: [signer], body: (signature) => ({ owner, signer, amount, destination, nonce, signature, ...expiryOf(b.expiresAfter) }) });
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      const ev = eventOf(final, 'WithdrawalRequested');
      return { success: true as const, status: 'requested', withdrawal_id: ev.withdrawalId, amount: String(ev.amount), fee: String(ev.fee), tx_hash: final.receipt.txHash };
    },
  });
};
