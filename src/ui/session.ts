import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Sessions without server state: the cookie is `<id>.<mac>`, the form's CSRF token a second MAC
 * of the same id, both keyed by the access token. A new token ends every session; a restart
 * ends none.
 */
export class Sessions {
  constructor(private readonly token: string) {}

  create(): string {
    const id = randomBytes(18).toString('base64url');
    return `${id}.${this.mac('session', id)}`;
  }

  /** The session id of a valid cookie value. */
  verify(cookie: string | undefined): string | undefined {
    const [id, mac, extra] = (cookie ?? '').split('.');
    if (!id || !mac || extra !== undefined) return undefined;
    return same(mac, this.mac('session', id)) ? id : undefined;
  }

  csrfFor(sessionId: string): string {
    return this.mac('csrf', sessionId);
  }

  csrfMatches(sessionId: string, value: unknown): boolean {
    return typeof value === 'string' && same(value, this.csrfFor(sessionId));
  }

  tokenMatches(value: string | undefined): boolean {
    return value !== undefined && same(this.mac('token', value), this.mac('token', this.token));
  }

  private mac(purpose: string, value: string): string {
    return createHmac('sha256', this.token).update(`${purpose}:${value}`).digest('base64url');
  }
}

/** Compared as MACs of equal length: timingSafeEqual needs that, and the length says nothing. */
function same(a: string, b: string): boolean {
  const key = randomBytes(16);
  const digest = (value: string) => createHmac('sha256', key).update(value).digest();
  return timingSafeEqual(digest(a), digest(b));
}
