/** BFT consensus core: pure, single-threaded, driven by the node (see docs/consensus.md). */
export { Step, isStaleTimeout, consensusRoundMachine } from '../../machines/consensus-round';
export * from './messages';
export * from './signer';
export * from './validator-set';
export * from './vote-set';
export * from './evidence';
export * from './privval';
export * from './params';
export * from './core';
export * from './limits';
