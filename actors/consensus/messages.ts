/**
 * What the consensus actors accept in their mailboxes (the BFT engine,
 * actors/consensus/bft.ts, and the solo producer, actors/consensus/solo.ts), and what
 * /status shows of consensus. A leaf module: types only, no actor behaviour and nothing
 * of src/node (see actors/chain/messages.ts).
 */
import type { DriverMsg, EvidenceRecord } from '../../src/consensus/driver-io';
import type { DriverInfo } from '../../src/consensus/driver';
import type { LaneStats } from '../inbox';

/** The driver's messages (src/consensus/driver-io.ts): what the BFT actor's mailbox takes. */
export type ConsensusMsg = DriverMsg;

/** The solo producer's one message: time to build the next block. */
export type ProducerMsg = { type: 'tick' };

export type { EvidenceRecord };

/** What /status shows of consensus: the driver's figures (src/consensus/driver.ts) and the actor's inbox lanes. */
export interface ConsensusInfo extends DriverInfo {
  /** The inbox's lanes (timeout, proposal, vote, status, certificate, evidence): capacity, policy, size and what each dropped. */
  lanes: Record<string, LaneStats>;
}
