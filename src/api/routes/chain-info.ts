/**
 * Chain information: GET /chain-config and GET /v1/network (contract [C-rpc-status], [C-account-network]).
 * /v1/network also gives the node's libp2p addresses (`p2p.multiaddrs`, each ending in
 * /p2p/<peer id>): what another node passes to `start --bootstrap` (issue 20).
 * GET /v1/network/peers (decision 79): the connected peers, each with the listen addresses
 * it announced (libp2p identify) and its head as last probed (actors/p2p/peer-heights.ts),
 * beside this node's own height; what the onboarding service checks a candidate's node
 * against before it registers it; and the peer table discovery keeps (decision 184:
 * known peers, their sources and scores, the bans).
 * /v1/network's `bridge` (issue 22): the external chain id, this node's external RPC
 * (its --bridge deployment file's; null without one) and the bridge and USDC contracts;
 * null on a network without a bridge.
 */
import type { RoutePlugin } from '../route-plugin';
import { AGENT_CAPS_PRECOMPILE, EXCHANGE_ADDRESS, ORDERBOOK_PRECOMPILE } from '../../rpc/constants';
import { bytesToHex } from '../../util/bytes';
import { ok } from '../envelope';
import { checkNetwork, networkSchema as networkParam, usdc } from '../common';
import { bridgeNetwork } from './bridge';
import { addr, arr, bool, dec, envelope, errorResponses, EX, hex, int, nullable, obj, openObj, str } from '../schemas';

const contractsSchema = obj({ exchange: addr(), orderbookPrecompile: addr(), agentCapsPrecompile: addr(), eip712VerifyingContract: addr() });
const contractsExample = { exchange: '0x0000000000000000000000000000000000000800', orderbookPrecompile: '0x000000000000000000000000000000000000080a', agentCapsPrecompile: '0x000000000000000000000000000000000000080b', eip712VerifyingContract: '0x0000000000000000000000000000000000000800' };
const p2pSchema = obj({ peerId: nullable(str()), multiaddrs: arr(str(), 'Listen addresses, each ending in /p2p/<peer id>: what another node passes to `start --bootstrap`.') });

const chainConfigSchema = obj({
  chainId: int(),
  network: str(),
  genesisHash: hex(),
  blockTimeMs: int('The target interval between blocks.'),
  finality: str('single-block: a block is final once committed.'),
  nativeToken: obj({ name: str(), symbol: str(), decimals: int() }),
  eip712Domain: obj({ name: str(), version: str(), chainId: int(), verifyingContract: addr() }),
  precompiles: obj({ orderbook: addr(), agentCaps: addr() }),
  contracts: contractsSchema,
  fees: obj({ makerFeeBps: int(), takerFeeBps: int(), withdrawalFee: dec('USDC.'), minWithdrawal: dec('USDC.'), gasPriceWei: dec() }),
  limits: openObj('The chain\u2019s limits as executed now (genesis, then owner governance), each a number, plus the consensus bounds below.', { maxBlockTxs: int(), maxTxBytes: int(), epochLengthBlocks: int() }),
});

const networkSchema = obj({
  chainId: int(),
  network: str(),
  blockHeight: int(),
  latestBlockTimeMs: int(),
  blockTimeMs: int(),
  rpc: str('Path of the JSON-RPC endpoint.'),
  ws: str('Path of the WebSocket endpoint.'),
  contracts: contractsSchema,
  validators: int('Genesis validators.'),
  p2p: p2pSchema,
  bridge: nullable(obj({ chainId: int('The external chain.'), rpcUrl: nullable(str()), address: addr('The bridge contract (EIP-55).'), usdc: addr(), alerts: int('Bridge alerts recorded in chain state (decision 154; GET /reserves lists them).') })),
});

const tablePeerSchema = obj({
  peerId: str(),
  addrs: arr(str(), 'Addresses to dial it at (without /p2p/<peer id>).'),
  source: str('Where this node learnt it: bootstrap, chain (a validator record\u2019s endpoint), pex (peer exchange) or inbound (it connected).'),
  score: int('From -100 to 100: up for useful behaviour, down for misbehaviour; at -50 it is banned.'),
  connected: bool(),
  failures: int('Failed dials in a row.'),
  nextDialAtMs: int('Not dialled before this (wall-clock ms).'),
  lastSeenMs: int(),
  connectedAtMs: int(),
  validator: bool('A validator\u2019s peer: never shed.'),
  lastPenalty: nullable(str('Its last misbehaviour, in words.')),
});
const peerTableSchema = obj({
  limits: openObj('The table\u2019s bounds: addresses, addresses per peer, connection target and maximum, bans kept.'),
  known: int('Peers with an entry.'),
  connected: int(),
  peers: arr(tablePeerSchema, 'Best first (score, failures, source, freshness, peer id): the order it dials and shares them in.'),
  banned: arr(obj({ peerId: str(), untilMs: int(), reason: str() }), 'Peers not dialled nor learnt until their ban ends (another chain or genesis, or misbehaviour).'),
  stats: openObj('The table\u2019s counters.'),
});

const peersSchema = obj({
  blockHeight: int('This node\u2019s head.'),
  peers: arr(obj({ peerId: str(), listen: arr(str(), 'Listen addresses it announced (libp2p identify).'), height: nullable(int('Its head, as last probed.')), heightAtMs: nullable(int()) })),
  table: nullable(peerTableSchema),
});

export const chainInfoRoutes: RoutePlugin = async (app, { node }) => {
  const g = node.genesis;
  const contracts = {
    exchange: EXCHANGE_ADDRESS,
    orderbookPrecompile: ORDERBOOK_PRECOMPILE,
    agentCapsPrecompile: AGENT_CAPS_PRECOMPILE,
    eip712VerifyingContract: EXCHANGE_ADDRESS,
  };

  app.get('/chain-config', {
    schema: {
      tags: ['node'],
      summary: 'Chain identity, EIP-712 domain, contracts, fees and limits',
      description: 'What a client needs to sign: chain id, the EIP-712 domain, precompile addresses; fees and limits as executed now (owner governance may have changed them since genesis).',
      response: {
        200: envelope(chainConfigSchema, {
          chainId: 713799, network: 'devnet', genesisHash: EX.hash, blockTimeMs: 1000, finality: 'single-block', nativeToken: { name: 'Exchange', symbol: 'EXC', decimals: 18 },
          eip712Domain: { name: 'ExchangeSession', version: '1', chainId: 713799, verifyingContract: contractsExample.exchange },
          precompiles: { orderbook: contractsExample.orderbookPrecompile, agentCaps: contractsExample.agentCapsPrecompile }, contracts: contractsExample,
          fees: { makerFeeBps: 2, takerFeeBps: 5, withdrawalFee: '1', minWithdrawal: '5', gasPriceWei: '1000000000' },
          limits: { maxBatchOrders: 10, maxBlockTxs: 5000, maxTxBytes: 16384, epochLengthBlocks: 100 },
        }),
        ...errorResponses,
      },
    },
  }, async () => {
    // Fees and limits as executed now: owner governance may have changed them since
    // genesis (decisions 74 and 76).
    const params = node.chain().state.params();
    const fees = params.fees;
    return ok({
      chainId: g.chainId,
      network: g.network,
      genesisHash: bytesToHex(node.genesisHash),
      blockTimeMs: node.blockTimeMs,
      finality: 'single-block',
      nativeToken: g.nativeToken,
      eip712Domain: { name: 'ExchangeSession', version: '1', chainId: g.chainId, verifyingContract: EXCHANGE_ADDRESS },
      precompiles: { orderbook: ORDERBOOK_PRECOMPILE, agentCaps: AGENT_CAPS_PRECOMPILE },
      contracts,
      fees: {
        makerFeeBps: fees.makerFeeBps,
        takerFeeBps: fees.takerFeeBps,
        withdrawalFee: usdc(fees.withdrawalFeeUsdc),
        minWithdrawal: usdc(fees.minWithdrawalUsdc),
        gasPriceWei: String(fees.gasPriceWei),
      },
      limits: {
        ...params.limits,
        maxBlockTxs: g.consensus.maxBlockTxs,
        maxTxBytes: g.consensus.maxTxBytes,
        epochLengthBlocks: g.consensus.epochLengthBlocks,
      },
    });
  });

  app.get('/v1/network', {
    schema: {
      querystring: { type: 'object', additionalProperties: false, properties: { network: networkParam } },
      tags: ['node'],
      summary: 'The network: head, endpoints, contracts, p2p addresses, bridge',
      response: {
        200: envelope(networkSchema, {
          chainId: 713799, network: 'devnet', blockHeight: 1024, latestBlockTimeMs: EX.timestampMs, blockTimeMs: 1000, rpc: '/', ws: '/ws', contracts: contractsExample, validators: 4,
          p2p: { peerId: '12D3KooWExample', multiaddrs: ['/ip4/127.0.0.1/tcp/7000/p2p/12D3KooWExample'] }, bridge: null,
        }),
        ...errorResponses,
      },
    },
  }, async (req) => {
    checkNetwork(g, req.query.network);
    const chain = node.chain();
    return ok({
      chainId: g.chainId,
      network: g.network,
      blockHeight: chain.height,
      latestBlockTimeMs: chain.lastTimestampMs,
      blockTimeMs: node.blockTimeMs,
      rpc: '/',
      ws: '/ws',
      contracts,
      validators: g.validators.length,
      p2p: p2pMultiaddrs(node.p2pAddresses()),
      bridge: bridgeNetwork(node),
    });
  });

  app.get('/v1/network/peers', {
    schema: {
      tags: ['node'],
      summary: 'Connected peers and their heads',
      description: 'Each connected peer with the listen addresses it announced and its head as last probed, beside this node\u2019s height, and the peer table discovery keeps (decision 184: every known peer, its source and score, the bans); empty and null without p2p.',
      response: { 200: envelope(peersSchema, { blockHeight: 1024, peers: [{ peerId: '12D3KooWExample', listen: ['/ip4/127.0.0.1/tcp/7001'], height: 1024, heightAtMs: EX.timestampMs }], table: null }), ...errorResponses },
    },
  }, async () => {
    const peers = await node.p2pPeers();
    return ok({ blockHeight: node.chain().height, peers, table: node.p2pTable() });
  });
};

/** Listen addresses each with its `/p2p/<peer id>` (libp2p usually reports them so already). */
export function p2pMultiaddrs(p2p: { peerId: string; listen: string[] } | null): { peerId: string | null; multiaddrs: string[] } {
  if (p2p === null) return { peerId: null, multiaddrs: [] };
  const suffix = `/p2p/${p2p.peerId}`;
  return { peerId: p2p.peerId, multiaddrs: p2p.listen.map((a) => (a.endsWith(suffix) ? a : `${a}${suffix}`)) };
}
