/**
 * Expected failures are values: a ToolError carries a stable code and a hint, and renders as
 * `Error [CODE]: what happened. Hint: what to do next.` Throw only for bugs.
 */
export type ErrorCode =
  | 'INVALID_ARGUMENT'
  | 'INVALID_PATH'
  | 'PATH_OUTSIDE_ROOT'
  | 'FILE_NOT_FOUND'
  | 'NOT_A_FILE'
  | 'FILE_TOO_LARGE'
  | 'BINARY_FILE'
  | 'UNREADABLE_FILE'
  | 'INVALID_REGEX'
  | 'INVALID_QUERY'
  | 'STALE_CURSOR'
  | 'INVALID_CURSOR'
  | 'BUDGET_TOO_SMALL'
  | 'STALE_TARGET'
  | 'STALE_LOCATOR'
  | 'TARGET_NOT_FOUND'
  | 'AMBIGUOUS_TARGET'
  | 'UNSUPPORTED_LANGUAGE'
  | 'LINE_OUT_OF_RANGE'
  | 'INDEX_UNAVAILABLE'
  | 'INDEX_CORRUPT'
  | 'INDEX_TOO_NEW'
  | 'DEADLINE_EXCEEDED'
  | 'STILL_WORKING'
  | 'PROVIDER_UNAVAILABLE'
  | 'DOCUMENT_UNAVAILABLE'
  | 'PROJECT_NOT_FOUND'
  | 'REF_NOT_FOUND'
  | 'INTERNAL';

export class ToolError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly hint: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ToolError';
  }

  /** `Error [CODE]: message Hint: hint` — the one shape every caller sees. */
  render(): string {
    const msg = /[.!?]$/.test(this.message) ? this.message : `${this.message}.`;
    return `Error [${this.code}]: ${msg} Hint: ${this.hint}`;
  }
}

export function isToolError(e: unknown): e is ToolError {
  return e instanceof ToolError;
}

/** Result type for expected outcomes in lower layers. */
export type Result<T, E = ToolError> = { ok: true; value: T } | { ok: false; error: E };
export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });
export const err = <E>(error: E): Result<never, E> => ({ ok: false, error });
