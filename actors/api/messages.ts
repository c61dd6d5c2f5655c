/**
 * What the API actor (actors/api/api-actor.ts) accepts in its mailbox. A leaf module:
 * types only, no actor behaviour and nothing of src/node (see actors/chain/messages.ts).
 */
import type { Block } from '../../src/codec/block';
import type { BlockResult } from '../../src/state/apply';

/**
 * 'applied': a BFT-decided block is applied in memory (its waiting requests are
 * answered); 'committed': it is on disk too (WebSocket pushes, and the answers of
 * blocks that had no 'applied').
 */
export type ApiMsg = { type: 'committed' | 'applied'; block: Block; result: BlockResult };
