/**
 * The onboarding service's bounds on its actors (actors/onboarding/), beside the node's
 * (actors/limits.ts), each with its unit and what it costs at most. The service is small
 * and its callers are people (applicants, the operator): a full mailbox answers 503
 * SERVICE_BUSY with Retry-After rather than queue without end.
 */

/**
 * Applications waiting for review, at most: each is a few hundred bytes of disk and a line
 * of the operator's list, so an unbounded public form would let anyone fill both. Past it,
 * apply answers 503 APPLICATIONS_FULL until the operator reviews some.
 */
export const PENDING_MAX_DEFAULT = 10_000;

// ------------------------------------------------------------------ supervision

/** First restart delay of a failed actor; doubles per consecutive failure. */
export const ONBOARDING_BACKOFF_INITIAL_MS = 50;
/** Longest restart delay. */
export const ONBOARDING_BACKOFF_MAX_MS = 5_000;
/** Restarts of one actor within ONBOARDING_RESTART_WINDOW_MS before the service halts instead. */
export const ONBOARDING_RESTARTS_MAX = 10;
export const ONBOARDING_RESTART_WINDOW_MS = 60_000;
/** How long a route waits for an actor's answer before 503 SERVICE_BUSY; the node client's is its own. */
export const ONBOARDING_ASK_TIMEOUT_MS = 30_000;
/**
 * What a request's deadline to begin (messages.ts `startByMs`) leaves before its asker
 * stops waiting: a request begun in time has this long to finish (a few reads and one
 * synced batch take milliseconds), so what is done is answered.
 */
export const ONBOARDING_STEP_MS_MAX = 10_000;

// ------------------------------------------------------------------ mailboxes

/**
 * Store actor: reads and batches from the review and downloads actors and the routes'
 * reads (status, the operator's list). A held message is an address or a batch of at
 * most a few records (~1 KB).
 */
export const ONBOARDING_STORE_MAILBOX_MSGS = 256;

/** Review actor: applications, approvals, rejections, operator nonces, each an HTTP request waiting; ~ 400 B each. */
export const ONBOARDING_REVIEW_MAILBOX_MSGS = 64;

/**
 * Downloads held at once (claimed, not yet finished), and claims parked behind one of
 * the same token and artifact: each is an open HTTP response. Past either, a claim is
 * 503 SERVICE_BUSY.
 */
export const ONBOARDING_DOWNLOADS_HELD_MAX = 64;
export const ONBOARDING_DOWNLOADS_PARKED_MAX = 64;
/** Downloads actor, claims lane: claims waiting to be checked. */
export const ONBOARDING_DOWNLOAD_CLAIMS_MSGS = 64;
/**
 * Downloads actor, finishes lane (served first): one finish per held download, so it is
 * not refused and a hold is always released; twice the holds, for the finishes of the
 * downloads a restarted instance no longer holds but still marks.
 */
export const ONBOARDING_DOWNLOAD_FINISHES_MSGS = 2 * ONBOARDING_DOWNLOADS_HELD_MAX;

/**
 * Node-client actor: registrations waiting for the network's node, handled one at a
 * time (each reads the node's peers and waits for its transaction to be final, up to a
 * minute). Registering is for approved applicants only, so few ever wait.
 */
export const ONBOARDING_NODE_CLIENT_MAILBOX_MSGS = 16;
/**
 * A registration waits at most this long in the node client's mailbox: one that has not
 * started by then is answered 503 SERVICE_BUSY instead of being sent after its caller
 * stopped waiting.
 */
export const NODE_CLIENT_START_WITHIN_MS = 30_000;
/** Tries of one registration when the node cannot be reached (the request never sent), and the first pause between them (doubling). */
export const NODE_CLIENT_ATTEMPTS = 3;
export const NODE_CLIENT_RETRY_INITIAL_MS = 250;
export const NODE_CLIENT_RETRY_MAX_MS = 2_000;
