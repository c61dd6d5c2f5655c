/**
 * Every XState machine of the node, by name, and what each one is to execution: the
 * auditors' view. Each entry can be drawn (xstate/graph `toDirectedGraph`), says which
 * file executes it and how, and names the test that shows the drawing and the execution
 * agree (or, for a machine that does not execute yet, why not and what will). A machine
 * is the executed truth: execution asks it what an event does in a state, through the
 * machine itself, a stepper compiled from it (machines/stepper.ts), or its drawing read
 * at load, never through an if-chain that mirrors it.
 *
 * test/machines/index.test.ts fails when a file of machines/ defines a machine that is
 * not listed in MACHINE_ROLES, when a listed file does not exist or does not import its
 * machine, or when the list and `machines` disagree. Add one entry per machine.
 */
import type { AnyStateMachine } from 'xstate';
import { actorLifecycleMachine } from './actor-lifecycle';
import { consensusRoundMachine } from './consensus-round';
import { sessionMachine } from './session';
import { agentModeMachine } from './agent-mode';
import { positionMachine } from './position';
import { validatorLifecycleMachine } from './validator-lifecycle';
import { onboardingMachine } from './onboarding';
import { governanceOperationMachine } from './governance-operation';
import { withdrawalMachine } from './withdrawal';
import { twapMachine } from './twap';

export const machines = {
  'actor-lifecycle': actorLifecycleMachine,
  'consensus-round': consensusRoundMachine,
  session: sessionMachine,
  'agent-mode': agentModeMachine,
  position: positionMachine,
  'validator-lifecycle': validatorLifecycleMachine,
  onboarding: onboardingMachine,
  'governance-operation': governanceOperationMachine,
  withdrawal: withdrawalMachine,
  twap: twapMachine,
} as const;

export type MachineName = keyof typeof machines;

export interface MachineRole {
  id: MachineName;
  machine: AnyStateMachine;
  /** The file in machines/ that defines it. */
  file: string;
  /** How execution uses it (or why it does not execute yet, and what will). */
  role: string;
  /** Files that execute it: they import the machine file and step or run it. Empty: not executed yet. */
  executedBy: readonly string[];
  /** Tests showing that the drawing and the execution agree. */
  agreementTest: readonly string[];
}

export const MACHINE_ROLES: readonly MachineRole[] = [
  {
    id: 'actor-lifecycle',
    machine: actorLifecycleMachine,
    file: 'machines/actor-lifecycle.ts',
    role:
      "The SupervisedActor's lifecycle is this machine run as an xstate actor (createActor): every step of the runtime " +
      '(START, STARTED, FAIL, STOPPED, RETRY, STOP) is an event the machine must accept, the actor does what the state ' +
      'it enters asks (build the behaviour in starting, handle messages in running, wait backoffDelayMs in backoff, ' +
      "give up in gaveUp), and actor.status is the machine's state value.",
    executedBy: ['actors/actor.ts'],
    agreementTest: ['test/machines/actor-lifecycle.test.ts', 'test/actors/actor.test.ts'],
  },
  {
    id: 'consensus-round',
    machine: consensusRoundMachine,
    file: 'machines/consensus-round.ts',
    role:
      'Stepped by the consensus core for every fact it counts (proposal, +2/3 prevotes or precommits, timeouts, new ' +
      "round, commit done) through roundStepper, compiled from the machine by machines/stepper.ts (no xstate actor); the core " +
      'executes only the effects the step returns (propose, prevote, precommit, decide, scheduleTimeout, rebroadcast, ' +
      'requestBlock), so it never signs a vote the machine did not ask for.',
    executedBy: ['src/consensus/core.ts'],
    agreementTest: ['test/consensus/consensus-round.test.ts', 'test/consensus/core.test.ts'],
  },
  {
    id: 'session',
    machine: sessionMachine,
    file: 'machines/session.ts',
    role:
      'SessionCreate and SessionRevoke step the stored session (value + context, TableId.Session) with stepSession, ' +
      'compiled from the machine (machines/stepper.ts): a CREATE the machine refuses after its guard allowed it halts ' +
      'the node, a REVOKE it refuses is 404. A session\'s state at the block time is the TICK the machine takes at that ' +
      "time (sessionStateAt); order authorization is the machine's guard function sessionRefusal on that state.",
    executedBy: ['src/state/accounts/sessions.ts', 'src/state/ops/session-keys.ts'],
    agreementTest: ['test/machines/session.test.ts', 'test/sessions/execution.test.ts'],
  },
  {
    id: 'agent-mode',
    machine: agentModeMachine,
    file: 'machines/agent-mode.ts',
    role:
      "SetAgentMode and SetAgentCaps apply SET_MODE and SET_CAPS to the stored snapshot (TableId.Agent) with xstate's " +
      'pure transition() (two parallel regions: outside what the flat stepper covers, and one transaction each, so its ' +
      'cost does not matter). ORDER never changes the state: every order (placeOrder, src/state/orders/execution.ts, through ' +
      'requireAgentOrder) or perp open signed by a session key is judged ' +
      "by orderRefusal, which runs the ORDER guards the machine draws for the owner's mode, read from the drawing at " +
      'load (ORDER_GUARDS), with the functions those guards are.',
    executedBy: ['src/state/accounts/agents.ts', 'src/state/ops/agent-settings.ts', 'src/state/perps/engine.ts'],
    agreementTest: ['test/machines/agent-mode.test.ts', 'test/sessions/execution.test.ts'],
  },
  {
    id: 'position',
    machine: positionMachine,
    file: 'machines/position.ts',
    role:
      'Every change of a perp position (open, close whole or part, TP/SL set, TP/SL hit, liquidation, ADL) is one ' +
      'stepPosition call, the stepper compiled from the machine (machines/stepper.ts), on the stored record\'s state; ' +
      'what the step leaves is stored (open with its size and targets) or deleted (closed, liquidated), and an event ' +
      'the machine refuses halts the node (InvariantError). Its guard functions give the error codes before the step.',
    executedBy: ['src/state/perps/position-step.ts', 'src/state/perps/engine.ts'],
    agreementTest: ['test/machines/position.test.ts', 'test/perps/position-machine.test.ts'],
  },
  {
    id: 'validator-lifecycle',
    machine: validatorLifecycleMachine,
    file: 'machines/validator-lifecycle.ts',
    role:
      "Every change of a validator's status is one stepValidator call (src/state/validators/records.ts), which steps " +
      'the stored record (value + context, TableId.Validator; a genesis validator\'s implicit record until its first ' +
      'change) with stepValidatorLifecycle, the stepper compiled from the machine (machines/stepper.ts), and stores what ' +
      'it leaves; a refused event halts the node (InvariantError). RegisterValidator steps REGISTER, Unbond UNBOND ' +
      '(its error codes from the guard function floorKept first), Unjail UNJAIL (guard jailServed), the epoch boundary ' +
      '(src/state/validators/epoch.ts) UNBONDING_DONE and EPOCH_BOUNDARY, and the penalty entry points ' +
      '(src/state/validators/penalties.ts) JAIL_DOWNTIME and DOUBLE_SIGN, called by the downtime count at the start of ' +
      'each block (src/state/validators/downtime.ts) and by DoubleSignEvidence (src/state/ops/double-sign-evidence.ts).',
    executedBy: ['src/state/validators/records.ts', 'src/state/ops/validator-unbond.ts', 'src/state/ops/validator-unjail.ts', 'src/state/validators/penalties.ts'],
    agreementTest: ['test/machines/validator-lifecycle.test.ts', 'test/validators/lifecycle.test.ts', 'test/validators/penalties.test.ts'],
  },
  {
    id: 'onboarding',
    machine: onboardingMachine,
    file: 'machines/onboarding.ts',
    role:
      "An applicant's status in the onboarding service (not the chain: its own LevelDB, src/onboarding/store.ts) is " +
      'the state value and context stored per address, changed only by stepOnboarding, the stepper compiled from the ' +
      'machine (machines/stepper.ts), in src/onboarding/applicants.ts, which the review actor ' +
      '(actors/onboarding/review-actor.ts) calls one step at a time: POST /api/validators/apply steps APPLY from the ' +
      "stored state (not_found without a record), and an APPLY the machine refuses is the service's 409 " +
      "VALIDATOR_EXISTS. The operator's review (src/onboarding/operator-routes.ts, decision 78) steps APPROVE or " +
      'REJECT the same way (reviewApplicant), the approval writing its token in the same synced batch; a review the ' +
      "machine refuses is the service's 409 APPLICANT_STATE.",
    executedBy: ['src/onboarding/applicants.ts'],
    agreementTest: ['test/machines/onboarding.test.ts', 'test/onboarding/service.test.ts'],
  },
  {
    id: 'governance-operation',
    machine: governanceOperationMachine,
    file: 'machines/governance-operation.ts',
    role:
      "Every change of an owner governance operation's state is one stepOperation call (src/state/governance/operations.ts), which " +
      'steps the stored record (value + context, TableId.Governance) with stepGovernanceOperation, the stepper compiled ' +
      'from the machine (machines/stepper.ts), and stores what it leaves. GovernancePropose steps PROPOSE, ' +
      'GovernanceApprove APPROVE (and, for a halt, TICK and EXECUTE at once), GovernanceExecute EXECUTE and ' +
      'GovernanceCancel CANCEL (src/state/ops/governance-operations.ts), each after a TICK at the block time, which ' +
      'makes an approved operation ready once the timelock has passed and a pending one expired; an event the machine ' +
      "refuses is the transaction's refusal (422 OPERATION_STATE). The API's state of an operation is the TICK at the " +
      "head's time (operationStateAt).",
    executedBy: ['src/state/governance/operations.ts'],
    agreementTest: ['test/machines/governance-operation.test.ts', 'test/governance/operations.test.ts'],
  },
  {
    id: 'withdrawal',
    machine: withdrawalMachine,
    file: 'machines/withdrawal.ts',
    role:
      "Every change of a bridge withdrawal's status is one stepWithdrawal call (src/state/bridge/withdrawals.ts), which " +
      'steps the stored record (status + context, TableId.Withdrawal) with stepWithdrawalMachine, the stepper compiled ' +
      'from the machine (machines/stepper.ts), stores what it leaves and does what the state entered asks (paid: the lock ' +
      'ends, the fee to the fee account, the amount burned; refunded: the lock back to free). WithdrawalSignatures steps ' +
      'SIGNED once the signers pass 2/3 of the power (src/state/ops/withdrawal-signatures.ts); BridgeAttestation claims ' +
      'step QUEUED, PAID and VOID at their quorum (src/state/bridge/votes.ts). A claim the machine refuses in the ' +
      "record's state is late (claimSettled, src/state/bridge/reads.ts asks the same stepper): it changes nothing.",
    executedBy: ['src/state/bridge/withdrawals.ts', 'src/state/bridge/reads.ts'],
    agreementTest: ['test/machines/withdrawal.test.ts', 'test/bridge-state/withdrawals.test.ts'],
  },
  {
    id: 'twap',
    machine: twapMachine,
    file: 'machines/twap.ts',
    role:
      "Every change of a TWAP order's state is one stepTwap call (src/state/timers/twap.ts), which steps the stored record " +
      '(state + context, TableId.Twap) with stepTwapMachine, the stepper compiled from the machine (machines/stepper.ts), ' +
      'and stores what it leaves. The end-of-block slice step steps SLICE (an IOC slice executed), MISS (not placed: no ' +
      'fresh mark, no liquidity, halted, size) or REFUSED (the trader cannot pay: failed); TwapCancel steps CANCEL, and ' +
      "a CANCEL the machine refuses is the transaction's 422 TWAP_STATE; a refused slice event halts the node.",
    executedBy: ['src/state/timers/twap.ts'],
    agreementTest: ['test/machines/twap.test.ts', 'test/timers/state.test.ts'],
  },
];
