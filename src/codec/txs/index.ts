/** Importing this module registers every transaction kind with the envelope codec. */
import './faucet';
import './orders';

export * from './faucet';
export * from './orders';
