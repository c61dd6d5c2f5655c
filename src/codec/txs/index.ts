/** Importing this module registers every transaction kind with the envelope codec. */
import './bridge';
import './eth';
import './evidence';
import './faucet';
import './governance';
import './oracle';
import './orders';
import './perps';
import './sessions';
import './subaccounts';
import './timers';
import './validators';
import './withdraw';

export * from './bridge';
export * from './eth';
export * from './evidence';
export * from './faucet';
export * from './governance';
export * from './oracle';
export * from './orders';
export * from './perps';
export * from './sessions';
export * from './subaccounts';
export * from './timers';
export * from './validators';
export * from './withdraw';
