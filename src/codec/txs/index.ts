/** Importing this module registers every transaction kind with the envelope codec. */
import './faucet';

export * from './faucet';
