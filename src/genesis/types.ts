import type { Address, Hex } from '../util/bytes';

/**
 * The genesis file, as parsed and validated by src/genesis/load.ts.
 * JSON carries big integers as decimal strings; the loader turns them into bigint.
 * Units: USDC amounts 6 decimals, native token amounts 18 decimals (wei),
 * prices ×1e6, sizes ×1e18, times in milliseconds unless the name says otherwise.
 */
export interface Genesis {
  /** "devnet" | "testnet" | "mainnet": the network this file starts. */
  network: 'devnet' | 'testnet' | 'mainnet';
  chainId: number;
  /** Block time of block 0, Unix milliseconds. */
  genesisTimeMs: number;
  nativeToken: { name: string; symbol: string; decimals: 18 };
  consensus: ConsensusParams;
  validators: GenesisValidator[];
  /**
   * The 2-of-3 owner keys that authorize every privileged protocol change, and the
   * network's operator: the key whose ApproveValidator must precede a candidate's
   * RegisterValidator (decision 159), changed by the owners' SetOperator.
   */
  owners: { addresses: [Address, Address, Address]; threshold: 2; operator: Address };
  fees: FeeParams;
  limits: LimitParams;
  pairs: PairParams[];
  perps: PerpParams;
  oracle: OracleParams;
  /** Accounts funded at genesis. Devnet keys are public and devnet-only. */
  accounts: GenesisAccount[];
  /** Devnet faucet; absent on testnet and mainnet. */
  faucet?: FaucetParams;
  /** Address that receives trading fees. */
  feeAccount: Address;
  /**
   * The external bridge this network honours (issue 22, decision 82): consensus state.
   * Absent: the network has no bridge (deposits, attestations and withdrawal requests refused 422 BRIDGE_DISABLED).
   */
  bridge?: BridgeParams;
  /** What a node keeps on disk by default (issue 27; src/genesis/storage.ts): absent, every block and no snapshots. Local policy, not consensus state. */
  storage?: StorageParams;
}

/**
 * Storage defaults of the network's nodes (issue 27; decisions 132, 136). Not consensus:
 * no state reads them; they are in genesis so every node of a network starts with the
 * same defaults, and a node's flags override them.
 */
export interface StorageParams {
  /** Blocks a node keeps by default (the newest this many; `--retain-blocks`, `--archive` override). Absent: every block. */
  retainBlocks?: number;
  /** A state snapshot every this many blocks (decision 136; `--snapshot-interval` overrides); absent: none. */
  snapshotIntervalBlocks?: number;
  /** Snapshots kept (default 2; `--snapshot-keep`). */
  snapshotKeep?: number;
}

/** The external EVM chain's bridge: which contract's events count and how withdrawals are bound. Not governable (issue 22). */
export interface BridgeParams {
  /** The external EVM chain's id (hardhat: 31337). Positive safe integer. */
  externalChainId: number;
  /** ExchangeBridge contract address (JSON: any-case 0x address; here lower-case). */
  address: Address;
  /** The bridged USDC (6 decimals) the bridge holds. */
  usdc: Address;
  /** A log counts once head − logBlock + 1 ≥ confirmations. 1..1000. Devnet 2. */
  confirmations: number;
  /** validUntil = floor((requestMs + withdrawalWindowMs)/1000). 60 000 .. 30 days. Devnet 600 000 (10 min). */
  withdrawalWindowMs: number;
  /**
   * The first deposit id the chain credits (default 0): deposits below it were made before
   * this chain (a bridge already used) and are never credited here (decision 150).
   */
  firstDepositId?: number;
}

export interface ConsensusParams {
  blockTimeMs: number;
  /** Tendermint-style timeouts, growing by the delta each round. */
  timeoutProposeMs: number;
  timeoutProposeDeltaMs: number;
  timeoutPrevoteMs: number;
  timeoutPrevoteDeltaMs: number;
  timeoutPrecommitMs: number;
  timeoutPrecommitDeltaMs: number;
  maxBlockTxs: number;
  maxBlockBytes: number;
  maxTxBytes: number;
  /** A proposer's timestamp must lie within this bound of each validator's clock. */
  maxClockDriftMs: number;
  epochLengthBlocks: number;
  unbondingEpochs: number;
  /** Voting-power cap per validator, basis points of the active set total (1500 = 15%). */
  votingPowerCapBps: number;
  activeSetMax: number;
  activeSetMin: number;
  minBondWei: bigint;
  maxBondWei: bigint;
  downtimeWindowBlocks: number;
  /** Missing more than this share (bps) of the window jails. */
  downtimeMaxMissedBps: number;
  slashDowntimeBps: number;
  slashDoubleSignBps: number;
  /**
   * Double-sign evidence about a height more than this many blocks below the including
   * block is refused (decision 72). Optional: absent, it is epochLengthBlocks (read it
   * through evidenceMaxAgeBlocks() of src/state/validators/signing-sets.ts). At most one
   * epoch keeps it inside the unbonding window, so an offender's bond is still locked
   * when its evidence arrives. Optional so that the genesis files, and their hashes,
   * stay as they were.
   */
  evidenceMaxAgeBlocks?: number;
  timelockRoutineMs: number;
  timelockHighImpactMs: number;
}

export interface GenesisValidator {
  name: string;
  /** Address derived from the ECDSA key. */
  address: Address;
  /** Compressed secp256k1 public key, 33 bytes. */
  ecdsaPubkey: Hex;
  /** Ed25519 VRF public key, 32 bytes. */
  vrfPubkey: Hex;
  bondWei: bigint;
  /** host:port of the validator's gossip endpoint. */
  endpoint: string;
}

export interface FeeParams {
  makerFeeBps: number;
  takerFeeBps: number;
  withdrawalFeeUsdc: bigint;
  minWithdrawalUsdc: bigint;
  /** Native-token gas price for Ethereum-style transfers, wei per gas. */
  gasPriceWei: bigint;
}

export interface LimitParams {
  maxBatchOrders: number;
  maxCandles: number;
  maxTrades: number;
  maxDepth: number;
  maxOrdersListed: number;
  priceAllCacheMs: number;
  maxSessionDurationMs: number;
  maxLeverage: number;
  poolLockupMs: number;
  tpslCheckIntervalMs: number;
  fundingIntervalMs: number;
  /** Sub-accounts one master may open (absent: 10; at most 32): src/state/accounts/subaccounts.ts, decision 93. */
  maxSubAccounts?: number;
  /** Dead-man switch: schedules a trader may set per UTC day of block time (decision 90). Absent: DEFAULT_SCHEDULE_CANCELS_PER_DAY (10). */
  scheduleCancelsPerDay?: number;
  /** TWAP: block time between slices (decision 91). Absent: DEFAULT_TWAP_SLICE_INTERVAL_MS (30 000). */
  twapSliceIntervalMs?: number;
}

export interface PairParams {
  id: number;
  symbol: string;
  /** Smallest price increment, ×1e6. */
  tickSize: bigint;
  /** Smallest size increment, ×1e18. */
  lotSize: bigint;
  minSize: bigint;
  maxLeverage: number;
  /** Maintenance margin in bps of notional (half the initial margin at max leverage). */
  maintenanceMarginBps: number;
  /** Open interest cap as bps of pool value. */
  openInterestCapBps: number;
  /** Devnet oracle starting price ×1e6. */
  initialPrice: bigint;
  /**
   * The pair's markets, a bitmask of PAIR_MARKET_SPOT and PAIR_MARKET_PERP (decision 76).
   * Set on a pair added by governance; absent on a genesis pair (the genesis file has no
   * such field), which has both.
   */
  markets?: number;
  /**
   * Where validators take the pair's price from (decision 76): `devnet-path` (the
   * deterministic devnet source, src/oracle/devnet-source.ts) or a named external feed.
   * Set on a pair added by governance; absent on a genesis pair, which reads as `devnet-path`.
   */
  oracleSource?: string;
}

/** A pair's spot order book (bit of PairParams.markets). */
export const PAIR_MARKET_SPOT = 1;
/** A pair's perp market (bit of PairParams.markets). */
export const PAIR_MARKET_PERP = 2;
/** Both markets: what a genesis pair has. */
export const PAIR_MARKETS_BOTH = PAIR_MARKET_SPOT | PAIR_MARKET_PERP;

export interface PerpParams {
  /** Funding: base interest rate per 8 hours in parts per million (100 = 0.01%). */
  interestRatePer8hPpm: number;
  /** Clamp on (interest − premium), ppm (500 = 0.05%). */
  fundingClampPpm: number;
  /** Cap on the resulting rate, ppm (40000 = 4%). */
  fundingCapPpm: number;
  /** ADL triggers when traders' unrealized PnL against the pool exceeds this share of pool value. */
  adlPoolPnlThresholdBps: number;
  initialPoolUsdc: bigint;
}

export interface OracleParams {
  /** A median older than this pauses opening, TP/SL and liquidation. */
  maxStalenessMs: number;
  /** Devnet deterministic price source seed. */
  devnetSeed: string;
  /** Devnet price path: max move per step in bps. */
  devnetMaxStepBps: number;
}

export interface GenesisAccount {
  address: Address;
  usdc: bigint;
  nativeWei: bigint;
  /** Label only; private keys of devnet accounts live in docs/devnet-accounts.md. */
  label?: string;
}

export interface FaucetParams {
  /** The faucet's signing address; its key is public (devnet only). */
  address: Address;
  /** Devnet-only private key of the faucet signer, used by the node's /faucet route. */
  privateKey: Hex;
  maxUsdcPerRequest: bigint;
  maxUsdcPerAddress: bigint;
  nativeWeiPerRequest: bigint;
}
