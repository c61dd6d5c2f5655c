/**
 * Every XState machine of the node, by name: the auditors' view. Each entry can be
 * drawn (xstate/graph `toDirectedGraph`) and each live actor reports which state of
 * its machine it is in. Add one line per machine.
 */
import { actorLifecycleMachine } from './actor-lifecycle';
import { consensusRoundMachine } from './consensus-round';
import { sessionMachine } from './session';
import { agentModeMachine } from './agent-mode';
import { positionMachine } from './position';

export const machines = {
  'actor-lifecycle': actorLifecycleMachine,
  'consensus-round': consensusRoundMachine,
  session: sessionMachine,
  'agent-mode': agentModeMachine,
  position: positionMachine,
} as const;

export type MachineName = keyof typeof machines;
