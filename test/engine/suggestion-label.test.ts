import { describe, expect, it } from 'vitest';
import { suggestionLabel, titleAsShown } from '../../src/engine/suggestion-label.js';

const SITE = ' - Apache HTTP Server Version 2.4';

describe('where a suggestion leads, as a person reads it', () => {
  it("drops the site's name that the target's title shares with the page the chain is on", () => {
    expect(titleAsShown(`Configuration Files${SITE}`, `apache2ctl - Apache HTTP Server Control Interface${SITE}`)).toBe(
      'Configuration Files',
    );
    expect(titleAsShown(`ab - Apache HTTP server benchmarking tool${SITE}`, `mod_status${SITE}`)).toBe(
      'ab - Apache HTTP server benchmarking tool',
    );
  });

  it('keeps a title whose last part is its own, and a name written with an en dash', () => {
    expect(titleAsShown('Foo - Bar', 'Baz - Qux')).toBe('Foo - Bar');
    expect(titleAsShown("1996 US Open – Women's Doubles", 'Thai people – Overview')).toBe(
      "1996 US Open – Women's Doubles",
    );
    expect(titleAsShown(`Configuration Files${SITE}`, null)).toBe(`Configuration Files${SITE}`);
  });

  it('reads "its page" when the page is titled by the entity once the site name is gone', () => {
    const leadsTo = titleAsShown(`mod_remoteip${SITE}`, `Apache Performance Tuning${SITE}`);
    expect(suggestionLabel({ entity: 'mod_remoteip', leadsTo })).toBe('mod_remoteip → its page');
  });
});
