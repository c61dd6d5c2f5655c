/**
 * Agent mode and caps in the chain state (TableId.Agent holds, per owner, the snapshot
 * of machines/agent-mode.ts), the order check placeOrder runs for every order signed by
 * a session key, and the read the 0x080B precompile will serve (`agentCapsOf`).
 *
 * Per-order cost: one table lookup; nothing more when the owner never set mode or caps
 * (the machine's initial state: active, no caps). Otherwise the order's facts and
 * `orderRefusal`, which runs the ORDER guards the machine draws for the owner's mode
 * (read from the machine at load), no machine transition: ORDER never changes state.
 */
import { transition, type SnapshotFrom } from 'xstate';
import {
  AGENT_MODES,
  agentModeMachine,
  ORDER_GUARDS,
  orderNeedsMargin,
  orderRefusal,
  ordersAllowedWithoutFacts,
  type AgentEvent,
  type AgentRefusal,
  type AgentStateValue,
  type OrderFacts,
} from '../../../machines/agent-mode';
import type { Address } from '../../util/bytes';
import { forbidden } from '../errors';
import type { AgentCapsRecord, AgentRecord, Position } from '../records';
import { abs, ceilDiv, notional } from '../orders/settlement';
import type { State } from '../state';

type AgentSnapshot = SnapshotFrom<typeof agentModeMachine>;

/** The machine's initial state, which an owner without a record is in. */
const DEFAULT_AGENT: Readonly<AgentRecord> = Object.freeze({ mode: 'active', caps: null });

export function agentRecord(state: State, owner: Address): AgentRecord {
  return state.agents.get(owner) ?? DEFAULT_AGENT;
}

export function agentSnapshot(rec: AgentRecord): AgentSnapshot {
  const value: AgentStateValue = { mode: rec.mode, caps: rec.caps ? 'set' : 'notSet' };
  return agentModeMachine.resolveState({ value, context: { caps: rec.caps ? { ...rec.caps } : null } });
}

export function agentRecordOf(s: AgentSnapshot): AgentRecord {
  const value = s.value as AgentStateValue;
  const caps = s.context.caps;
  if ((value.caps === 'set') !== (caps !== null)) throw new Error(`agent snapshot: caps region ${value.caps} but caps ${caps === null ? 'absent' : 'present'}`);
  return { mode: value.mode, caps: caps ? { ...caps } : null };
}

/** Applies SET_MODE or SET_CAPS with the machine's pure transition function. */
export function agentTransition(rec: AgentRecord, event: Exclude<AgentEvent, { type: 'ORDER' }>): AgentSnapshot {
  return transition(agentModeMachine, agentSnapshot(rec), event)[0];
}

// ---- the 0x080B read ---------------------------------------------------------------

interface AgentCapsView {
  /** 0 OFF, 1 REDUCE_ONLY, 2 ACTIVE. */
  mode: 0 | 1 | 2;
  capsSet: boolean;
  maxLeverageBps: bigint;
  allowedOrderTypes: number;
  maxInput: bigint;
  maxTotal: bigint;
}

/**
 * agentCaps(owner) → (mode, caps_set, max_leverage_bps, allowed_order_types, max_input,
 * max_total), as the read-precompile at 0x080B returns it. Pure read; without caps the
 * numbers are 0 and caps_set false; without any setting the mode is ACTIVE.
 */
export function agentCapsOf(state: State, owner: Address): AgentCapsView {
  const rec = agentRecord(state, owner);
  const mode = AGENT_MODES.indexOf(rec.mode) as 0 | 1 | 2;
  const c = rec.caps;
  return {
    mode,
    capsSet: c !== null,
    maxLeverageBps: c?.maxLeverageBps ?? 0n,
    allowedOrderTypes: c?.allowedOrderTypes ?? 0,
    maxInput: c?.maxInputPerTrade ?? 0n,
    maxTotal: c?.maxTotalPosition ?? 0n,
  };
}

/** A registered agent in the state's eyes: the owner set caps or a mode at least once. */
export function hasAgentSettings(state: State, owner: Address): boolean {
  return state.agents.has(owner);
}

// ---- the order check -------------------------------------------------------------

/** The part of an order the agent rules read. */
interface AgentOrder {
  side: 0 | 1;
  orderType: 0 | 1;
  price: bigint;
  size: bigint;
  leverage: number;
}

/**
 * USDC units of new margin the order commits (contract [D-orders-agent-mode]: a reducing order needs none).
 * The first |position| units of an order against the position close it; only the rest
 * opens exposure, costing ⌈notional ÷ leverage⌉: at the limit price for a limit order,
 * at the simulated fills for a market order (its unfilled rest is cancelled). The
 * opening part's notional is the fill's minus the closing part's, as settlement counts it.
 */
export function newMargin(o: AgentOrder, positionSize: bigint, fills: readonly { price: bigint; size: bigint }[]): bigint {
  const closable = (o.side === 0 ? positionSize < 0n : positionSize > 0n) ? abs(positionSize) : 0n;
  const lev = BigInt(o.leverage);
  if (o.orderType === 1) return o.size > closable ? ceilDiv(notional(o.price, o.size - closable), lev) : 0n;
  let left = closable;
  let opening = 0n;
  for (const f of fills) {
    const close = f.size < left ? f.size : left;
    left -= close;
    if (close < f.size) opening += notional(f.price, f.size) - notional(f.price, close);
  }
  return ceilDiv(opening, lev);
}

/** The facts the machine's ORDER guards read. */
function orderFacts(o: AgentOrder, position: Position, fills: readonly { price: bigint; size: bigint }[], withMargin: boolean): OrderFacts {
  const before = position.size;
  return {
    orderType: o.orderType,
    leverage: o.leverage,
    margin: withMargin ? newMargin(o, before, fills) : 0n,
    positionBefore: before,
    positionAfter: o.side === 0 ? before + o.size : before - o.size,
  };
}

/** Why the owner's agent state refuses this session-key order; null when it passes. */
export function agentOrderRefusal(rec: AgentRecord | undefined, o: AgentOrder, position: Position, fills: readonly { price: bigint; size: bigint }[]): { code: AgentRefusal; facts: OrderFacts } | null {
  // No record (the initial state), or a state whose ORDER guards pass any order: no facts needed.
  if (rec === undefined || ordersAllowedWithoutFacts(rec.mode, rec.caps)) return null;
  const facts = orderFacts(o, position, fills, orderNeedsMargin(rec.mode, rec.caps));
  const code = orderRefusal(rec.mode, rec.caps, facts);
  return code ? { code, facts } : null;
}

const sizeText = (v: bigint) => `${v} (×1e-18)`;

export function agentRefusalMessage(code: AgentRefusal, caps: AgentCapsRecord | null, f: OrderFacts, owner: Address): string {
  switch (code) {
    case 'AGENT_MODE_OFF':
      return `agent mode of ${owner} is OFF: its session key may not place orders`;
    case 'AGENT_REDUCE_ONLY':
      return `agent mode of ${owner} is REDUCE_ONLY: the order would take the net position from ${sizeText(f.positionBefore)} to ${sizeText(f.positionAfter)}, not shrink it without flipping`;
    case 'CAP_LEVERAGE':
      return `leverage: ${f.leverage}x is ${BigInt(f.leverage) * 10_000n} bps, above the agent cap max_leverage ${caps!.maxLeverageBps} bps`;
    case 'CAP_ORDER_TYPE':
      return `order_type: ${f.orderType === 1 ? 'Limit' : 'Market'} (bit ${f.orderType}) is not in the agent cap allowed_order_types ${caps!.allowedOrderTypes}`;
    case 'CAP_INPUT':
      return `size: the order commits ${f.margin} USDC units of margin, above the agent cap max_input_per_trade ${caps!.maxInputPerTrade}`;
    case 'CAP_POSITION':
      return `size: the net position would reach ${sizeText(abs(f.positionAfter))}, above the agent cap max_total_position ${caps!.maxTotalPosition}`;
  }
}

/**
 * Authorization decidable before the order's facts and before its nonce (decision 102):
 * the owner's mode takes no order at all from its session key (the machine's mode has no
 * ORDER transition: OFF). 403 AGENT_MODE_OFF, else nothing; the caps and REDUCE_ONLY need
 * the order's fills and stay in execution (requireAgentOrder).
 */
export function requireAgentMayOrder(state: State, owner: Address): void {
  const rec = state.agents.get(owner);
  if (rec !== undefined && ORDER_GUARDS[rec.mode] === null) throw forbidden('AGENT_MODE_OFF', `agent mode of ${owner} is OFF: its session key may not place orders`);
}

/** In execution: 403 with the refusal's code, or nothing. */
export function requireAgentOrder(state: State, owner: Address, o: AgentOrder, position: Position, fills: readonly { price: bigint; size: bigint }[]): void {
  const rec = state.agents.get(owner);
  const r = agentOrderRefusal(rec, o, position, fills);
  if (r) throw forbidden(r.code, agentRefusalMessage(r.code, rec?.caps ?? null, r.facts, owner));
}
