/**
 * Session keys in the chain state, and the one rule of who may sign what.
 *
 * Sessions: TableId.Session holds, per owner, the snapshot of machines/session.ts
 * (value + context). State-changing operations step the machine (`stepSession`, compiled
 * from it: src/state/ops/session-keys.ts); reads and order authorization take the state a
 * TICK at the block's time leaves (`sessionStateAt`, stepped the same way) and the
 * machine's guard function `sessionRefusal`.
 *
 * Who may sign (contract [C-auth-session-key]: "a session key can only trade: it can
 * neither withdraw nor transfer ownership"): every transaction kind declares a SignerRule in SIGNER_RULES,
 * a mapped type over TxKind, so a new kind does not compile until it says who may sign
 * it, and src/state/ops/index.ts wraps every kind's execution rule with it at load:
 *   - `owner`:  the signer must be the account acted for (session, agent, REST, and any
 *               future withdrawal or transfer kind). Stateless, so it runs at the door
 *               and again in execution (TxOp.check): 403 OWNER_ONLY. Marked `orMaster`,
 *               a derived sub-account's master passes the stateless check and the
 *               record is required in TxOp.authorize, before the nonce.
 *   - `trader`: the owner, or the owner's live session key at the block's time, checked
 *               in execution (TxOp.apply): 403 NOT_AUTHORIZED / SESSION_REVOKED /
 *               SESSION_EXPIRED. Such an order is an agent order (isAgent).
 *   - `self`:   the signature itself names the account acted for (an Ethereum
 *               transaction's recovered sender pays), so no key can act for another.
 *   - `kind`:   no account is acted for; the kind checks its own key (the faucet).
 * Sub-accounts (src/state/accounts/subaccounts.ts; decision 94): for an account that is a
 * sub-account of M, M counts as the owner in `trader` kinds and in the `owner` kinds
 * marked `orMaster` (the REST trading kinds: stateless, the address is derived from M;
 * the record must exist, checked by authorize before the nonce at the door and in
 * execution), and M's live session key as its session key.
 * Authority comes from the (owner, signer) pair, never from "is this address somebody's
 * session key": otherwise anyone could name a victim's address as their session key and
 * thereby block the victim's own withdrawals.
 */
import type { SnapshotFrom } from 'xstate';
import {
  EMPTY_SESSION_CONTEXT,
  sessionMachine,
  sessionRefusal,
  stepSession,
  type SessionContext,
  type SessionEvent,
  type SessionRefusal,
  type SessionStateName,
  type SessionStep,
} from '../../../machines/session';
import { TxKind } from '../../codec/tx';
import type { Address } from '../../util/bytes';
import type { TxOp } from '../context';
import { forbidden } from '../errors';
import type { SessionRecord } from '../records';
import type { State } from '../state';
import { isDerivedSubAccount, masterOf, PROTOCOL_MAX_SUB_ACCOUNTS, requireMasterSigner } from './subaccounts';

type SessionSnapshot = SnapshotFrom<typeof sessionMachine>;

// ---- the stored snapshot ---------------------------------------------------------

/** The machine snapshot a stored record (or its absence: `none`) stands for. */
export function sessionSnapshot(rec: SessionRecord | undefined): SessionSnapshot {
  if (!rec) return sessionMachine.resolveState({ value: 'none', context: { ...EMPTY_SESSION_CONTEXT } });
  const { state, ...context } = rec;
  return sessionMachine.resolveState({ value: state, context });
}

/** The record to store for a snapshot or step (never `none`: nothing leads back there). */
export function sessionRecordOf(s: { value: string; context: SessionContext }): SessionRecord {
  const value = s.value as SessionStateName;
  const c = s.context;
  if (value === 'none' || c.sessionKey === null) throw new Error('a session record is never written for state none');
  return { state: value, sessionKey: c.sessionKey, expiresAtMs: c.expiresAtMs, createdAtMs: c.createdAtMs, nonce: c.nonce };
}

/** What one event does to the stored session, asked of the machine; undefined when it refuses the event. */
export function sessionTransition(rec: SessionRecord | undefined, event: SessionEvent): SessionStep | undefined {
  return rec ? stepSession(rec.state, contextOf(rec), event) : stepSession('none', EMPTY_SESSION_CONTEXT, event);
}

function contextOf(rec: SessionRecord): SessionContext {
  return { sessionKey: rec.sessionKey, expiresAtMs: rec.expiresAtMs, createdAtMs: rec.createdAtMs, nonce: rec.nonce };
}

/** The machine's state at `nowMs`: what a TICK at that time leaves (the stored state when it has no TICK to take). */
export function sessionStateAt(rec: SessionRecord | undefined, nowMs: number): SessionStateName {
  if (!rec) return 'none';
  // The record carries the context's fields; TICK's guard reads expiresAtMs and changes nothing else.
  return stepSession(rec.state, rec, { type: 'TICK', nowMs })?.value ?? rec.state;
}

/** The owner's session if it is active at `nowMs`. */
export function activeSession(state: State, owner: Address, nowMs: number): SessionRecord | undefined {
  const rec = state.sessions.get(owner);
  return rec && sessionStateAt(rec, nowMs) === 'active' ? rec : undefined;
}

// ---- who may sign ----------------------------------------------------------------

/** Why `signer` may not trade for `owner` at `nowMs`; null when it may (itself, or the live session key). */
export function traderRefusal(state: State, owner: Address, signer: Address, nowMs: number): SessionRefusal | null {
  if (signer === owner) return null;
  // A sub-account's authority is its master's: the master itself, or the master's session key.
  const master = masterOf(state, owner);
  if (master === signer) return null;
  const rec = state.sessions.get(master ?? owner);
  return sessionRefusal(sessionStateAt(rec, nowMs), rec ?? EMPTY_SESSION_CONTEXT, signer, nowMs);
}

const REFUSAL_TEXT: Record<SessionRefusal, string> = {
  NOT_AUTHORIZED: 'is neither the owner nor its session key',
  SESSION_REVOKED: 'is a revoked session key of',
  SESSION_EXPIRED: 'is an expired session key of',
};

function traderRefusalMessage(code: SessionRefusal, owner: Address, signer: Address): string {
  return code === 'NOT_AUTHORIZED' ? `signer ${signer} may not act for ${owner}: it ${REFUSAL_TEXT[code]}` : `signer ${signer} ${REFUSAL_TEXT[code]} ${owner}`;
}

type SignerRule =
  /** orMaster: the owner's master may sign too (a sub-account's REST trading; src/state/accounts/subaccounts.ts). */
  | { who: 'owner'; owner(body: any): Address; orMaster?: true }
  | { who: 'trader'; owner(body: any): Address }
  | { who: 'self' }
  | { who: 'kind' };

const ownerField = { who: 'owner', owner: (b: { owner: Address }) => b.owner } as const;
const traderField = { who: 'owner', owner: (b: { trader: Address }) => b.trader, orMaster: true } as const;
/** Perp payloads name the owner as `wallet`, in whatever letter case it was signed. */
const perpTrader = { who: 'trader', owner: (b: { wallet: string }) => b.wallet.toLowerCase() as Address } as const;

/** Who may sign each kind. A mapped type over TxKind: a kind without a rule does not compile. */
export const SIGNER_RULES: { readonly [K in TxKind]: SignerRule } = {
  // Signed by the genesis faucet key; the kind checks it (src/state/ops/faucet-credit.ts).
  [TxKind.Faucet]: { who: 'kind' },
  // An Ethereum transfer moves the recovered sender's own native tokens: the signer is
  // the account acted for by construction (a session key's moves only its own funds).
  [TxKind.EthTx]: { who: 'self' },
  // REST trading stays owner-signed: the digest must recover to `trader` (or, for a
  // sub-account, the bound digest to its master: src/state/accounts/subaccounts.ts restSigner).
  [TxKind.RestOrder]: traderField,
  [TxKind.RestBatch]: traderField,
  [TxKind.RestCancel]: traderField,
  [TxKind.RestCancelAll]: traderField,
  // The timer kinds (decisions 90–91) are REST-signed like the orders: the digest must recover to `trader`.
  [TxKind.ScheduleCancel]: traderField,
  [TxKind.TwapPlace]: traderField,
  [TxKind.TwapCancel]: traderField,
  // Native orders: the owner or its live session key.
  [TxKind.NativePlace]: { who: 'trader', owner: (b: { owner: Address }) => b.owner },
  [TxKind.NativeCancel]: { who: 'trader', owner: (b: { owner: Address }) => b.owner },
  // Issue 24's order kinds (decisions 87, 88): REST ones owner-signed, native ones the owner or its live session key.
  [TxKind.RestModify]: traderField,
  [TxKind.RestCancelByCloid]: traderField,
  [TxKind.NativeModify]: { who: 'trader', owner: (b: { owner: Address }) => b.owner },
  [TxKind.NativeCancelByCloid]: { who: 'trader', owner: (b: { owner: Address }) => b.owner },
  // Session and agent settings: the owner only, never its session key.
  [TxKind.SessionCreate]: ownerField,
  [TxKind.SessionRevoke]: ownerField,
  [TxKind.SetAgentCaps]: ownerField,
  [TxKind.SetAgentMode]: ownerField,
  // Moving funds out: the owner only (a session key can only trade; a sub-account has no key, so its funds go back to the master first).
  [TxKind.Withdraw]: ownerField,
  // Sub-accounts: the master only, never its session key (src/state/ops/subaccount-actions.ts).
  [TxKind.SubAccountCreate]: ownerField,
  [TxKind.SubAccountTransfer]: ownerField,
  // Signed by a validator's consensus key; the kind checks it is a current validator (src/state/ops/oracle-observation.ts).
  [TxKind.OracleObservation]: { who: 'kind' },
  // Perp trading: the owner (`wallet`) or its live session key (`sessionWallet`); an
  // open by the session key answers to the agent mode and caps (src/state/perps/engine.ts).
  [TxKind.PerpOpen]: perpTrader,
  [TxKind.PerpClose]: perpTrader,
  [TxKind.PerpTpsl]: perpTrader,
  // The pool moves funds: the owner only.
  [TxKind.PoolDeposit]: ownerField,
  [TxKind.PoolWithdraw]: ownerField,
  // A validator acts for itself: the signature must recover to the candidate / validator
  // named (src/state/ops/validator-registration.ts, validator-unbond.ts, validator-unjail.ts), never a session key.
  [TxKind.RegisterValidator]: { who: 'owner', owner: (b: { candidate: Address }) => b.candidate },
  [TxKind.Unbond]: { who: 'owner', owner: (b: { validator: Address }) => b.validator },
  [TxKind.Unjail]: { who: 'owner', owner: (b: { validator: Address }) => b.validator },
  // The network's operator approves for itself (src/state/ops/validator-approval.ts checks it is the operator in force).
  [TxKind.ApproveValidator]: { who: 'owner', owner: (b: { operator: Address }) => b.operator },
  // No account acts: the two votes' signatures are the offender's, checked by the kind
  // (src/state/ops/double-sign-evidence.ts); anyone may carry the proof.
  [TxKind.DoubleSignEvidence]: { who: 'kind' },
  // An owner of the genesis owner set acts for itself: the EIP-712 signature must recover
  // to the owner named (src/state/ops/governance-operations.ts), never a session key.
  [TxKind.GovernancePropose]: { who: 'owner', owner: (b: { proposer: Address }) => b.proposer },
  [TxKind.GovernanceApprove]: { who: 'owner', owner: (b: { owner: Address }) => b.owner },
  [TxKind.GovernanceExecute]: { who: 'owner', owner: (b: { owner: Address }) => b.owner },
  [TxKind.GovernanceCancel]: { who: 'owner', owner: (b: { owner: Address }) => b.owner },
  // A validator attests with its consensus key: the signature must recover to the
  // validator named (src/state/ops/bridge-attestation.ts, withdrawal-signatures.ts).
  [TxKind.BridgeAttestation]: { who: 'owner', owner: (b: { validator: Address }) => b.validator },
  [TxKind.WithdrawalSignatures]: { who: 'owner', owner: (b: { validator: Address }) => b.validator },
  [TxKind.BridgeSetSignatures]: { who: 'owner', owner: (b: { validator: Address }) => b.validator },
};

function signerRule(kind: TxKind): SignerRule {
  const rule = (SIGNER_RULES as Partial<Record<TxKind, SignerRule>>)[kind];
  if (!rule) throw new Error(`transaction kind ${kind} has no signer rule (SIGNER_RULES in src/state/accounts/sessions.ts)`);
  return rule;
}

/** 403 OWNER_ONLY unless the signer is the account acted for. */
export function requireOwner(kindName: string, owner: Address, signer: Address): void {
  if (signer !== owner) {
    throw forbidden('OWNER_ONLY', `${kindName} must be signed by the owner ${owner}, not ${signer}: a session key can only trade`);
  }
}

const wrapped = new WeakSet<TxOp>();

/** The kind's execution rule with its signer rule in front (applied to every kind in ops/index.ts). */
export function withSignerRule<B>(kind: TxKind, op: TxOp<B>, kindName = `kind ${kind}`): TxOp<B> {
  if (wrapped.has(op)) return op;
  const rule = signerRule(kind);
  let out: TxOp<B>;
  if (rule.who === 'kind' || rule.who === 'self') out = op;
  else if (rule.who === 'owner' && rule.orMaster) {
    out = {
      ...op,
      check(body, params, signer) {
        const owner = rule.owner(body);
        // Stateless: a master's signature is let through for the addresses derived from it,
        // up to the protocol bound (restSigner's): governance may lower limits.maxSubAccounts
        // below a master's count, and its existing sub-accounts keep trading. authorize
        // requires the record.
        if (!isDerivedSubAccount(signer, owner, PROTOCOL_MAX_SUB_ACCOUNTS)) requireOwner(kindName, owner, signer);
        op.check?.(body, params, signer);
      },
      // The master's signature needs the sub-account's record: who may act (403) is
      // decided before the nonce (decision 102), at the door and in execution alike, so a
      // refused attempt is answered at the door and spends no nonce there.
      authorize(state, body, signer, timeMs) {
        requireMasterSigner(state, kindName, rule.owner(body), signer);
        op.authorize?.(state, body, signer, timeMs);
      },
    };
  } else if (rule.who === 'owner') {
    out = {
      ...op,
      check(body, params, signer) {
        requireOwner(kindName, rule.owner(body), signer);
        op.check?.(body, params, signer);
      },
    };
  } else {
    out = {
      ...op,
      authorize(state, body, signer, timeMs) {
        const owner = rule.owner(body);
        const code = traderRefusal(state, owner, signer, timeMs);
        if (code) throw forbidden(code, traderRefusalMessage(code, owner, signer));
        op.authorize?.(state, body, signer, timeMs);
      },
      // apply needs no second look: execution runs authorize at the block's time just
      // before (src/state/apply.ts), on the same state.
    };
  }
  wrapped.add(out);
  return out;
}
