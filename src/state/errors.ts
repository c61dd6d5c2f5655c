/**
 * A transaction refused by validation or execution. `status` is the HTTP status the
 * API answers with (DECISIONS: 400 shape, 401 signature, 403 not allowed, 409 nonce,
 * 422 execution); `code` is the UPPER_SNAKE error code of the envelope.
 */
export class TxError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 422 | 503,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'TxError';
  }
}

export const badRequest = (code: string, message: string) => new TxError(400, code, message);
export const unauthorized = (message: string) => new TxError(401, 'INVALID_SIGNATURE', message);
export const forbidden = (code: string, message: string) => new TxError(403, code, message);
export const rejected = (code: string, message: string) => new TxError(422, code, message);
