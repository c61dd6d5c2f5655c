/**
 * One owner's agent mode and caps (contract [C-res-agent-caps], [C-state-agent-*],
 * [D-orders-agent-mode]), as a pure XState machine with two parallel regions.
 *
 *   mode:  off ◀──SET_MODE 0──▶ reduceOnly ◀──SET_MODE 1/2──▶ active   (initial active;
 *          every mode goes to every mode, including itself; a mode above 2 changes nothing)
 *   caps:  notSet ─SET_CAPS─▶ set ─SET_CAPS─▶ set                     (initial notSet)
 *
 *   ORDER (an order signed by the owner's session key):
 *     off          no transition: refused (AGENT_MODE_OFF)
 *     reduceOnly   [reducesWithoutFlip and withinCaps] ─▶ reduceOnly, else refused
 *     active       [withinCaps] ─▶ active, else refused
 *
 * Mode defaults to ACTIVE and applies whether or not caps are set (OFF stops a session
 * key's orders without caps too); caps apply once set, in every mode. `withinCaps` with
 * no caps is true: the session key trades freely within the vault balance.
 *
 * Pure: no clock, no I/O. Execution (src/state/ops/agent-settings.ts) stores the snapshot's
 * value and context (TableId.Agent) and applies SET_MODE and SET_CAPS with the pure
 * `transition()`. For speed, an order does not run a transition (ORDER never changes
 * the state): placeOrder and perp opens call `orderRefusal`, which reads each mode's
 * ORDER transition from this machine's drawing at load (ORDER_GUARDS: which guards, in
 * which order) and runs the very functions those guards are (`capsRefusal`,
 * `reduceOnlyRefusal`); a property test checks `snapshot.can(ORDER)` equals
 * `orderRefusal(...) === null`.
 */
import { and, assertEvent, assign, setup } from 'xstate';

export type AgentModeName = 'off' | 'reduceOnly' | 'active';
/** Wire numbers of the modes (contract [C-res-agent-caps]: 0 OFF, 1 REDUCE_ONLY, 2 ACTIVE), index = number. */
export const AGENT_MODES: readonly AgentModeName[] = ['off', 'reduceOnly', 'active'];
export const AGENT_MODE_WIRE: Readonly<Record<AgentModeName, string>> = { off: 'OFF', reduceOnly: 'REDUCE_ONLY', active: 'ACTIVE' };
export type CapsStateName = 'notSet' | 'set';

export interface AgentCaps {
  /** Basis points: 200000 = 20x. */
  maxLeverageBps: bigint;
  /** Bit i set: order type i allowed (0 Market, 1 Limit). */
  allowedOrderTypes: number;
  /** USDC units (6 decimals) of new margin one order may commit. */
  maxInputPerTrade: bigint;
  /** Size units (18 decimals) the absolute net position may reach. */
  maxTotalPosition: bigint;
}

export interface AgentContext {
  /** null while the caps region is notSet. */
  caps: AgentCaps | null;
}

/** What an order is judged on (all from the order and the owner's position before it). */
export interface OrderFacts {
  orderType: 0 | 1;
  leverage: number;
  /**
   * USDC units of new margin the order commits: the opening part's notional ÷ leverage
   * (rounded up), at the limit price or, for a market order, at the simulated fills.
   * 0 for an order that only reduces.
   */
  margin: bigint;
  /** Signed net position before the order (×1e18). */
  positionBefore: bigint;
  /** Signed net position if the order fills fully. */
  positionAfter: bigint;
}

export type AgentEvent =
  | { type: 'SET_MODE'; mode: number }
  | { type: 'SET_CAPS'; caps: AgentCaps }
  | { type: 'ORDER'; order: OrderFacts };

export type AgentRefusal = 'AGENT_MODE_OFF' | 'AGENT_REDUCE_ONLY' | 'CAP_LEVERAGE' | 'CAP_ORDER_TYPE' | 'CAP_INPUT' | 'CAP_POSITION';

const BPS = 10_000n;
const absBig = (v: bigint) => (v < 0n ? -v : v);

/** Guard `withinCaps`: the first cap the order exceeds, null when inside all (or no caps). */
export function capsRefusal(caps: AgentCaps | null, o: OrderFacts): AgentRefusal | null {
  if (caps === null) return null;
  if (BigInt(o.leverage) * BPS > caps.maxLeverageBps) return 'CAP_LEVERAGE';
  if (((caps.allowedOrderTypes >>> o.orderType) & 1) === 0) return 'CAP_ORDER_TYPE';
  if (o.margin > caps.maxInputPerTrade) return 'CAP_INPUT';
  if (absBig(o.positionAfter) > caps.maxTotalPosition) return 'CAP_POSITION';
  return null;
}

/** Guard `reducesWithoutFlip`: the absolute net position shrinks and keeps its sign (or closes). */
export function reduceOnlyRefusal(o: Pick<OrderFacts, 'positionBefore' | 'positionAfter'>): 'AGENT_REDUCE_ONLY' | null {
  const { positionBefore: before, positionAfter: after } = o;
  if (before === 0n) return 'AGENT_REDUCE_ONLY';
  const sameSideOrClosed = before > 0n ? after >= 0n : after <= 0n;
  return sameSideOrClosed && absBig(after) < absBig(before) ? null : 'AGENT_REDUCE_ONLY';
}

const setModeTransitions = [
  { guard: { type: 'modeIs', params: { mode: 0 } }, target: 'off' },
  { guard: { type: 'modeIs', params: { mode: 1 } }, target: 'reduceOnly' },
  { guard: { type: 'modeIs', params: { mode: 2 } }, target: 'active' },
] as const;

export const agentModeMachine = setup({
  types: {
    context: {} as AgentContext,
    events: {} as AgentEvent,
  },
  actions: {
    storeCaps: assign(({ event }) => {
      assertEvent(event, 'SET_CAPS');
      return { caps: { ...event.caps } };
    }),
  },
  guards: {
    modeIs: ({ event }, params: { mode: number }) => {
      assertEvent(event, 'SET_MODE');
      return event.mode === params.mode;
    },
    withinCaps: ({ context, event }) => {
      assertEvent(event, 'ORDER');
      return capsRefusal(context.caps, event.order) === null;
    },
    reducesWithoutFlip: ({ event }) => {
      assertEvent(event, 'ORDER');
      return reduceOnlyRefusal(event.order) === null;
    },
  },
}).createMachine({
  id: 'agent',
  type: 'parallel',
  context: () => ({ caps: null }),
  states: {
    mode: {
      initial: 'active',
      states: {
        off: {
          on: { SET_MODE: setModeTransitions },
        },
        reduceOnly: {
          on: {
            SET_MODE: setModeTransitions,
            ORDER: { guard: and(['reducesWithoutFlip', 'withinCaps']), target: 'reduceOnly' },
          },
        },
        active: {
          on: {
            SET_MODE: setModeTransitions,
            ORDER: { guard: 'withinCaps', target: 'active' },
          },
        },
      },
    },
    caps: {
      initial: 'notSet',
      states: {
        notSet: { on: { SET_CAPS: { target: 'set', actions: 'storeCaps' } } },
        set: { on: { SET_CAPS: { target: 'set', actions: 'storeCaps' } } },
      },
    },
  },
});

export type AgentModeMachine = typeof agentModeMachine;

// ---- ORDER, asked of the drawing (hot path) -------------------------------------------

type OrderGuardName = 'withinCaps' | 'reducesWithoutFlip';

/** The refusal each ORDER guard of the machine stands for (null: the guard passes). */
const ORDER_GUARD_REFUSALS: Readonly<Record<OrderGuardName, (caps: AgentCaps | null, o: OrderFacts) => AgentRefusal | null>> = {
  withinCaps: capsRefusal,
  reducesWithoutFlip: (_caps, o) => reduceOnlyRefusal(o),
};

/**
 * Per mode, the guards of its ORDER transition in drawn order, read from the machine's
 * drawing at load (null: the mode has no ORDER transition, every order is refused). An
 * ORDER transition must stay in its mode, with one guard or an `and` of guards named in
 * ORDER_GUARD_REFUSALS; anything else throws here, so the drawing cannot move where
 * `orderRefusal` does not follow.
 */
export const ORDER_GUARDS: Readonly<Record<AgentModeName, readonly OrderGuardName[] | null>> = (() => {
  const regions = agentModeMachine.config.states as Record<string, { states?: Record<string, { on?: Record<string, unknown> }> }>;
  const out = {} as Record<AgentModeName, readonly OrderGuardName[] | null>;
  for (const mode of AGENT_MODES) {
    const t = regions.mode.states?.[mode]?.on?.ORDER as { guard?: unknown; target?: unknown } | undefined;
    if (t === undefined) {
      out[mode] = null;
      continue;
    }
    if (Array.isArray(t) || t.target !== mode) throw new Error(`agent-mode machine: ORDER in ${mode} must be one transition back to ${mode}`);
    const g = t.guard;
    const names = typeof g === 'string' ? [g] : typeof g === 'function' && Array.isArray((g as { guards?: unknown }).guards) ? (g as unknown as { guards: unknown[] }).guards : undefined;
    if (names === undefined || !names.every((n): n is OrderGuardName => typeof n === 'string' && n in ORDER_GUARD_REFUSALS)) {
      throw new Error(`agent-mode machine: the ORDER guard of ${mode} is not a named guard or an and() of named guards orderRefusal knows`);
    }
    out[mode] = names;
  }
  return out;
})();

/**
 * The machine's ORDER in `mode` with `caps`, as one function of the stored value and
 * context (per order, no transition): refused in a mode without an ORDER transition,
 * else the refusal of the first of its guards (in drawn order) that fails, null when
 * all pass. test/machines/agent-mode.test.ts checks it against `snapshot.can(ORDER)`.
 */
export function orderRefusal(mode: AgentModeName, caps: AgentCaps | null, o: OrderFacts): AgentRefusal | null {
  const guards = ORDER_GUARDS[mode];
  if (guards === null) return 'AGENT_MODE_OFF';
  for (const g of guards) {
    const refusal = ORDER_GUARD_REFUSALS[g](caps, o);
    if (refusal !== null) return refusal;
  }
  return null;
}

/**
 * Whether the machine takes every order in `mode` with `caps`, whatever the order: its
 * ORDER guards are only `withinCaps` and no caps are set (the machine's initial state:
 * a session key trades freely). Lets execution skip building the order's facts.
 */
export function ordersAllowedWithoutFacts(mode: AgentModeName, caps: AgentCaps | null): boolean {
  const guards = ORDER_GUARDS[mode];
  return guards !== null && caps === null && guards.every((g) => g === 'withinCaps');
}

/** Whether the order's margin is read (only `withinCaps` reads it, and only with caps set). */
export function orderNeedsMargin(mode: AgentModeName, caps: AgentCaps | null): boolean {
  return caps !== null && (ORDER_GUARDS[mode]?.includes('withinCaps') ?? false);
}
export type AgentStateValue = { mode: AgentModeName; caps: CapsStateName };
