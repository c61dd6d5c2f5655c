/**
 * The artifacts' routes of the onboarding service (contract [C-onboard-download],
 * [C-onboard-token], [C-auth-onboard-token], [D-validators-onboarding]; decision 78):
 *
 *   GET /api/validators/checksums                               → {binary, genesis, boot_bundle}: each {name, bytes, sha256} or null
 *   GET /api/validators/download/binary|genesis|boot-bundle?token=…  → the file (application/octet-stream, attachment)
 *
 * A download goes through the token's rule (src/onboarding/tokens.ts
 * `downloadRefusal`, applied by the store's `claimDownload`): 401 INVALID_TOKEN for a
 * malformed or unknown token, 410 TOKEN_EXPIRED, 410 TOKEN_USED for an artifact already
 * downloaded with it; 503 ARTIFACT_UNAVAILABLE for an artifact the service was started
 * without. The artifact is marked used once the response has been handed, whole, to
 * the operating system (the response's `close` with `writableFinished`); a download cut
 * off before leaves it unused, so the applicant can try again. A crash between the
 * sending and the synced mark lets the same token download that artifact once more:
 * decision 78 prefers that to losing a download the applicant never received, since
 * approval cannot be repeated. Each answer carries the artifact's sha256 in
 * `x-checksum-sha256`, the value the checksums route publishes. Only GET downloads: a
 * HEAD is not routed (404), so it cannot spend the token without the bytes.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError, errorSchema, ok } from '../api/envelope';
import { okSchema } from '../api/common';
import type { Artifacts } from './artifacts';
import type { DownloadBook } from './book';
import { ARTIFACT_KINDS, ARTIFACT_PATHS } from './tokens';

const checksumSchema = {
  type: ['object', 'null'],
  required: ['name', 'bytes', 'sha256'],
  properties: { name: { type: 'string' }, bytes: { type: 'integer' }, sha256: { type: 'string' } },
} as const;

export function registerDownloadRoutes(app: FastifyInstance, book: DownloadBook, artifacts: Artifacts): void {
  const checksums = Object.fromEntries(
    ARTIFACT_KINDS.map((kind) => {
      const a = artifacts[kind];
      return [kind, a === undefined ? null : { name: a.name, bytes: a.bytes.length, sha256: a.sha256 }];
    }),
  );
  app.get(
    '/api/validators/checksums',
    {
      schema: {
        response: {
          200: okSchema({ type: 'object', required: [...ARTIFACT_KINDS], properties: Object.fromEntries(ARTIFACT_KINDS.map((k) => [k, checksumSchema])) }),
        },
      },
    },
    async () => ok(checksums),
  );

  for (const kind of ARTIFACT_KINDS) {
    app.get<{ Querystring: { token: string } }>(
      `/api/validators/download/${ARTIFACT_PATHS[kind]}`,
      {
        // A HEAD would run the handler and finish a response without the bytes: it must not spend the token.
        exposeHeadRoute: false,
        schema: {
          querystring: { type: 'object', required: ['token'], properties: { token: { type: 'string', maxLength: 200 } } },
          response: { 400: errorSchema, 401: errorSchema, 410: errorSchema, 503: errorSchema },
        },
      },
      async (request, reply) => {
        const artifact = artifacts[kind];
        if (artifact === undefined) {
          throw new ApiError(503, 'ARTIFACT_UNAVAILABLE', `this onboarding service was started without the ${ARTIFACT_PATHS[kind]}; ask the operator`);
        }
        const claim = await book.claimDownload(request.query.token, kind);
        // A mark that fails to write leaves the artifact unused: the at-least-once side (decision 78).
        reply.raw.once('close', () => void claim.finish(reply.raw.writableFinished).catch(() => undefined));
        return reply
          .header('content-type', 'application/octet-stream')
          .header('content-disposition', `attachment; filename="${artifact.name}"`)
          .header('x-checksum-sha256', artifact.sha256)
          .send(Buffer.from(artifact.bytes.buffer, artifact.bytes.byteOffset, artifact.bytes.byteLength));
      },
    );
  }
}
