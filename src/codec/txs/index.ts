/** Importing this module registers every transaction kind with the envelope codec. */
import './eth';
import './faucet';
import './orders';
import './sessions';
import './withdraw';

export * from './eth';
export * from './faucet';
export * from './orders';
export * from './sessions';
export * from './withdraw';
