/**
 * What the oracle actor (actors/oracle/oracle-actor.ts) accepts in its mailbox. A leaf
 * module: types only, no actor behaviour and nothing of src/node (see
 * actors/chain/messages.ts).
 */

/** Time to sign the next observation (the actor's own timer sends it). */
export type OracleMsg = { type: 'tick' };
