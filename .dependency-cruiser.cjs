/**
 * Import rules of the repository (issue 19, docs/architecture.md "Imports point one
 * way"), checked by dependency-cruiser in `npm test` (`npm run lint:imports`):
 *   - no import circle anywhere;
 *   - the pure core (src/state, src/codec, src/crypto, src/signing, machines) imports no I/O: no
 *     actor, no API, no node wiring, no fastify, libp2p or LevelDB;
 *   - the crypto primitives (src/crypto) import nothing of the codec or of the signing
 *     formats built on them (src/signing): the formats point at the primitives, never back;
 *   - the API (routes, the door, JSON-RPC) sees the node only through src/api/node-api.ts:
 *     nothing of actors/ or src/node;
 *   - nothing in actors/ imports src/node: each actor is handed a typed bundle of what it
 *     uses (its `…Deps`, built by src/node/node.ts), never the node;
 *   - an actor's message module is a leaf: it imports no actor behaviour, so another
 *     actor's bundle can name its mailbox by it;
 *   - the onboarding service's pure part (src/onboarding fields, applicants, book, tokens, operator-auth)
 *     imports no I/O and none of the service's other files, its routes (register's too)
 *     see the service through the interfaces of book.ts only, never an actor (decision 75),
 *     and its actors (actors/onboarding) see neither the routes nor the app that wires them;
 *   - the consensus driver (src/consensus/driver*.ts), run by the node's consensus actor
 *     and by the simulator, does no I/O of its own: no file, socket or process module, no
 *     I/O package, no actor, node wiring, API, network or storage module (the storage's
 *     error kinds in src/storage/no-space.ts aside): everything it does I/O with is
 *     passed in (src/consensus/driver-io.ts).
 * Type-only imports count (tsPreCompilationDeps): a type is a dependency too.
 * test/arch/imports.test.ts shows each rule failing on a tree built to break it.
 */

/** Packages that do I/O: the web server, the network stack, the database. */
const IO_PACKAGES = ['fastify', '@fastify/[^/]+', 'libp2p', '@libp2p/[^/]+', '@chainsafe/[^/]+', 'classic-level'];
/** A package by name, resolved into node_modules or left unresolved. */
const ioPackage = `(^|/)node_modules/(${IO_PACKAGES.join('|')})(/|$)|^(${IO_PACKAGES.join('|')})$`;
const PURE_CORE = '^(src/(state|codec|crypto|signing)|machines)/';
/** An actor's leaf module (its messages) and the generic actor runtime they may name (Reply, LaneStats). */
const ACTOR_LEAVES = '^actors/([^/]+/messages\\.ts|actor\\.ts|mailbox\\.ts|inbox\\.ts)$';
/** The onboarding service's pure files: no I/O, importing only each other (and the pure core). */
const ONBOARDING_PURE = '^src/onboarding/(fields|applicants|book|tokens|operator-auth)\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: the layers must point one way (docs/architecture.md).',
      from: { path: '^(src|actors|machines|sim|bench|test)/' },
      to: { circular: true },
    },
    {
      name: 'pure-core-no-io',
      severity: 'error',
      comment: 'The pure core (src/state, src/codec, src/crypto, src/signing, machines) imports no actor, API, node wiring, fastify, libp2p or classic-level.',
      from: { path: PURE_CORE },
      to: { path: [`^(actors|src/api|src/node)/`, ioPackage] },
    },
    {
      name: 'crypto-is-primitives',
      severity: 'error',
      comment: 'src/crypto holds the primitives (hashes, curves, the VRF): it imports nothing of src/codec or of the signing formats in src/signing, which are built on it.',
      from: { path: '^src/crypto/' },
      to: { path: '^src/(codec|signing)/' },
    },
    {
      name: 'api-sees-node-api-only',
      severity: 'error',
      comment: 'Routes, the door and JSON-RPC see the node through src/api/node-api.ts only: nothing of actors/ or src/node.',
      from: { path: '^src/(api|rpc)/' },
      to: { path: '^(actors|src/node)/' },
    },
    {
      name: 'actors-no-node',
      severity: 'error',
      comment: 'An actor receives a typed bundle of what it uses (its …Deps, built by src/node/node.ts): nothing in actors/ imports src/node.',
      from: { path: '^actors/' },
      to: { path: '^src/node/' },
    },
    {
      name: 'actor-messages-are-leaves',
      severity: 'error',
      comment: "An actor's message module names types only: no actor behaviour.",
      from: { path: '^actors/[^/]+/messages\\.ts$' },
      to: { path: '^actors/', pathNot: ACTOR_LEAVES },
    },
    {
      name: 'onboarding-pure-no-io',
      severity: 'error',
      comment: "The onboarding service's pure part (field checks, applicant records, the book interface, tokens, the operator's signed text) imports no I/O: no fastify, classic-level, actor, node or API, and none of the service's other files (store, actors' wiring, routes, app, command line).",
      from: { path: ONBOARDING_PURE },
      to: { path: [`^(actors|src/api|src/node|src/cli)/`, '^src/onboarding/', ioPackage], pathNot: ONBOARDING_PURE },
    },
    {
      name: 'onboarding-routes-see-book-only',
      severity: 'error',
      comment: "The onboarding routes (apply, status, the operator's, the downloads, register) see the service through the interfaces of src/onboarding/book.ts: no actor, not its LevelDB store, node client, app or command line (the pure files, the apply budgets and the artifacts' types they may).",
      from: { path: '^src/onboarding/(routes|operator-routes|download-routes|register)\\.ts$' },
      to: {
        path: ['^actors/', '^src/onboarding/', '(^|/)node_modules/classic-level(/|$)|^classic-level$'],
        pathNot: '^src/onboarding/(fields|applicants|book|tokens|operator-auth|application-auth|apply-throttle|artifacts)\\.ts$',
      },
    },
    {
      name: 'onboarding-actors-below-app',
      severity: 'error',
      comment: "The onboarding service's actors (actors/onboarding) use the service's parts (the store's format, the pure records and rules, the node client) through their typed dependencies: never the routes, the app that wires them, or a command line.",
      from: { path: '^actors/onboarding/' },
      to: { path: ['^src/onboarding/(routes|operator-routes|download-routes|register|service|service-actors|cli|main|operator-cli|operator-key|operator-main)\\.ts$', '^src/cli/'] },
    },
    {
      name: 'consensus-driver-no-io',
      severity: 'error',
      comment: "The consensus driver (src/consensus/driver*.ts) is given its clock, transport, chain, mempool, storage signals and privval (driver-io.ts): it imports no file, socket or process module, no I/O package, no actor, node wiring, API, network or storage module (no-space.ts's error kinds aside).",
      from: { path: '^src/consensus/driver[^/]*\\.ts$' },
      to: {
        path: ['^(node:)?(fs|fs/promises|net|dgram|http|https|http2|tls|child_process|worker_threads|cluster)$', '^(actors|src/node|src/api|src/net|src/storage)/', ioPackage],
        pathNot: '^src/storage/no-space\\.ts$',
      },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|data)/' },
    moduleSystems: ['es6', 'cjs'],
  },
};
