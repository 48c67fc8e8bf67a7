/** A database URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]*):[^@]*@/, '$1:***@');
}
