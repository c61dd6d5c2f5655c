/**
 * Sub-account routes (issue 24, decisions 93–94): open a sub-account, move USDC between a
 * master and its sub-account, list a master's sub-accounts. Writes are the master's
 * EIP-712 typed data (src/signing/eip712-subaccounts.ts) and answer in the envelope once
 * final; the door (src/api/door.ts) asks the operations (src/state/ops/subaccount-actions.ts):
 * shape 400 (naming the field) before the signature 401. Trading as a sub-account needs no
 * route of its own: the order routes take the sub-account as `trader` / `owner` / `wallet`
 * and its master's signature (src/state/accounts/subaccounts.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { NodeApi } from '../node-api';
import { admitAtDoor } from '../door';
import { eventOf, throwIfFailed } from '../final';
import { TxKind } from '../../codec/tx';
import type { ActionOptions } from '../../codec/txs/options';
import { subAccountsOf } from '../../state/accounts/subaccounts';
import { toAddress } from '../../util/bytes';
import { parseDecimal } from '../../util/decimal';
import { address, checkNetwork, decimalString, networkSchema, nonceSchema, parseNonce, signatureSchema, usdc } from '../common';
import { ApiError, errorSchema, ok } from '../envelope';
import { addr, arr, bool, dec, envelope, EX, hex, int, obj, str } from '../schemas';

const errors = { '4xx': errorSchema, '5xx': errorSchema };
const expiresAfterSchema = { type: 'integer', minimum: 0, description: 'Block time (ms) after which the action is refused 422 ACTION_EXPIRED.' } as const;
const subAccountSchema = obj({
  address: addr(), master: addr(), name: str(), index: int(), createdMs: int(),
  freeBalance: dec(), lockedBalance: dec(), inPositions: dec(), totalBalance: dec(),
});
const EX_SUB = '0x5d1b3c1b8c3b2a8f0c9a0a51b2b7e4d0b1a2c3d4';

const optionsOf = (expiresAfter: number | undefined): ActionOptions | undefined => (expiresAfter === undefined ? undefined : { expiresAfter: BigInt(expiresAfter) });

export const subAccountRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  const { genesis } = node;
  const state = () => node.chain().state;

  app.post<{ Body: { owner: string; name: string; nonce: number | string; signature?: string; expiresAfter?: number; network?: string } }>('/v1/subaccount/create', {
    schema: {
      body: {
        type: 'object',
        required: ['owner', 'name', 'nonce'],
        additionalProperties: false,
        properties: { owner: address, name: { type: 'string', maxLength: 64 }, nonce: nonceSchema, signature: signatureSchema, expiresAfter: expiresAfterSchema, network: networkSchema },
        examples: [{ owner: EX.owner, name: 'market-making', nonce: 1, signature: EX.signature }],
      },
      tags: ['subaccounts'],
      summary: 'Open a sub-account',
      description: 'Signed by the master (EIP-712 SubAccountCreate(address owner,string name,uint256 nonce), with a trailing `string options` member when `expiresAfter` is sent). `name`: 1 to 32 of A-Z a-z 0-9 _ - ., unique per master ignoring case; at most `limits.maxSubAccounts` (default 10) per master. Answers once final with the new address.',
      response: { 200: envelope(obj({ master: addr(), subAccount: addr(), name: str(), index: int(), txHash: hex() }), { master: EX.owner, subAccount: EX_SUB, name: 'market-making', index: 0, txHash: EX.hash }), ...errors },
    },
    handler: async (req) => {
      const b = req.body;
      checkNetwork(genesis, b.network);
      const owner = toAddress(b.owner);
      const nonce = parseNonce(b.nonce);
      const options = optionsOf(b.expiresAfter);
      const { tx, signer } = admitAtDoor(state(), TxKind.SubAccountCreate, {
        signature: b.signature,
        signers: [owner],
        body: (signature) => ({ owner, name: b.name, nonce, signature, ...(options ? { options } : {}) }),
      });
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      const e = eventOf(final, 'SubAccountCreated');
      return ok({ master: e.master, subAccount: e.subAccount, name: e.name, index: e.index, txHash: final.receipt.txHash });
    },
  });

  app.post<{ Body: { owner: string; subAccount: string; deposit: boolean; amount: string; nonce: number | string; signature?: string; expiresAfter?: number; network?: string } }>('/v1/subaccount/transfer', {
    schema: {
      body: {
        type: 'object',
        required: ['owner', 'subAccount', 'deposit', 'amount', 'nonce'],
        additionalProperties: false,
        properties: {
          owner: address, subAccount: address, deposit: { type: 'boolean' }, amount: decimalString, nonce: nonceSchema, signature: signatureSchema,
          expiresAfter: expiresAfterSchema, network: networkSchema,
        },
        examples: [{ owner: EX.owner, subAccount: EX_SUB, deposit: true, amount: '250', nonce: 2, signature: EX.signature }],
      },
      tags: ['subaccounts'],
      summary: 'Move USDC between a master and its sub-account',
      description: 'Signed by the master (EIP-712 SubAccountTransfer(address owner,address subAccount,bool deposit,uint256 usdc,uint256 nonce), `usdc` in units of 1e-6). `deposit` true moves master → sub-account, false sub-account → master; from free balance only (422 INSUFFICIENT_BALANCE). A sub-account cannot withdraw: its funds go back to the master this way first.',
      response: { 200: envelope(obj({ master: addr(), subAccount: addr(), deposit: bool(), amount: dec(), txHash: hex() }), { master: EX.owner, subAccount: EX_SUB, deposit: true, amount: '250', txHash: EX.hash }), ...errors },
    },
    handler: async (req) => {
      const b = req.body;
      checkNetwork(genesis, b.network);
      const owner = toAddress(b.owner);
      const subAccount = toAddress(b.subAccount);
      const amount = parseDecimal(b.amount, 6);
      if (amount === null || amount === 0n) throw new ApiError(400, 'INVALID_AMOUNT', 'amount: must be a positive USDC decimal string with at most 6 decimals');
      const nonce = parseNonce(b.nonce);
      const options = optionsOf(b.expiresAfter);
      const { tx, signer } = admitAtDoor(state(), TxKind.SubAccountTransfer, {
        signature: b.signature,
        signers: [owner],
        body: (signature) => ({ owner, subAccount, deposit: b.deposit, usdc: amount, nonce, signature, ...(options ? { options } : {}) }),
        routeRules: () => {
          // What the request names must exist: answered before the signature, as execution would (404).
          if (!state().subAccounts.has(subAccount)) throw new ApiError(404, 'UNKNOWN_SUB_ACCOUNT', `subAccount: ${subAccount} is not a sub-account`);
        },
      });
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      const e = eventOf(final, 'SubAccountTransferred');
      return ok({ master: e.master, subAccount: e.subAccount, deposit: e.deposit, amount: usdc(e.usdc), txHash: final.receipt.txHash });
    },
  });

  app.get<{ Params: { master: string }; Querystring: { network?: string } }>('/v1/subaccounts/:master', {
    schema: {
      tags: ['subaccounts'],
      summary: 'A master\u2019s sub-accounts',
      description: 'In creation (index) order, with their USDC balances. Empty for an address without sub-accounts.',
      params: { type: 'object', properties: { master: address } },
      querystring: { type: 'object', additionalProperties: false, properties: { network: networkSchema } },
      response: {
        200: envelope(arr(subAccountSchema), [{ address: EX_SUB, master: EX.owner, name: 'market-making', index: 0, createdMs: EX.timestampMs, freeBalance: '250', lockedBalance: '0', inPositions: '0', totalBalance: '250' }]),
        ...errors,
      },
    },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      const s = state();
      return ok(subAccountsOf(s, toAddress(req.params.master)).map((r) => {
        const a = s.account(r.address);
        return {
          address: r.address, master: r.master, name: r.name, index: r.index, createdMs: r.createdMs,
          freeBalance: usdc(a.usdcFree), lockedBalance: usdc(a.usdcLocked), inPositions: usdc(a.usdcInPositions), totalBalance: usdc(a.usdcFree + a.usdcLocked + a.usdcInPositions),
        };
      }));
    },
  });
};
