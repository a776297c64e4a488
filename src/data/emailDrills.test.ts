// Email drills carry no customer and no phrasing of any split, their call is the service's real
// lookup, and mixing them into the copy drills leaves the word drills' stream as it was.
import { describe, expect, it } from 'vitest';
import { EMAIL_DOMAINS, FIRST_NAMES, LAST_NAMES } from '../envs/service/catalog';
import { userPhrasingInventory } from '../envs/service/userText';
import { parseToolCalls } from '../tokenizer/toolCalls';
import { Rng } from '../util/rng';
import { copyDrills } from './copyDrills';
import { EMAIL_DRILL_WORDINGS, drillEmail, emailDrill } from './emailDrills';

const EMAIL = /^([a-z]+)\.([a-z]+)(\d\d)@([a-z.]+)$/;

describe('email drills', () => {
  it('look up a database-shaped address of random names with the service call, in a wording of no split', () => {
    const names = new Set([...Object.values(FIRST_NAMES), ...Object.values(LAST_NAMES)].flat().map((n) => n.toLowerCase()));
    const rng = new Rng(3);
    const emails = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const d = emailDrill(rng);
      const { calls, errors } = parseToolCalls(d.messages[2].content);
      expect(errors).toEqual([]);
      expect(calls).toHaveLength(1);
      expect(calls[0].name).toBe('find_user_id_by_email');
      const email = calls[0].arguments.email as string;
      expect(d.messages[1].content).toContain(email);
      const m = EMAIL.exec(email);
      expect(m, email).not.toBeNull();
      expect(names.has(m![1]) || names.has(m![2])).toBe(false);
      expect(EMAIL_DOMAINS).toContain(m![4]);
      expect(d.tools.map((t) => t.function.name)).toEqual(['find_user_id_by_email']);
      emails.add(email);
    }
    expect(emails.size).toBeGreaterThan(1990);
    // the simulated user's email answers, with the address as a placeholder, in every split
    const answers = Object.values(userPhrasingInventory().email).flat().map((s) => s.replace('{email}', '{x}'));
    expect(answers.length).toBeGreaterThan(5);
    for (const w of EMAIL_DRILL_WORDINGS) expect(answers).not.toContain(w);
    for (const w of EMAIL_DRILL_WORDINGS) for (const a of answers) expect(a.includes(w.replace('{x}', '').trim()) && w !== '{x}').toBe(false);
    expect(drillEmail(new Rng(1))).toBe(drillEmail(new Rng(1)));
  });

  it('copyDrills: the asked share are email drills, the word drills are the stream emails 0 gives, and 0 is the old stream', () => {
    const plain = copyDrills(4000, 5);
    const mixed = copyDrills(4000, 5, 0.25);
    const isEmail = (d: (typeof plain)[number]) => d.tools[0].function.name === 'find_user_id_by_email';
    const share = mixed.filter(isEmail).length / mixed.length;
    expect(share).toBeGreaterThan(0.22);
    expect(share).toBeLessThan(0.28);
    mixed.forEach((d, i) => { if (!isEmail(d)) expect(d).toEqual(plain[i]); });
    expect(plain.some(isEmail)).toBe(false);
    expect(copyDrills(300, 5, 1).every(isEmail)).toBe(true);
    expect(() => copyDrills(3, 1, 1.5)).toThrow(/email share must be in \[0, 1\]; got 1.5/);
  });
});
