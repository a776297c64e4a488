// Renamed customers (randomUsers.ts): every trace of the task's customer (name, email, account id) is
// replaced consistently and nothing else changes (renaming back gives the episode again), the new
// names belong to no split's pool, and the SFT set asks for a share of them on service tasks only.
import { describe, expect, it } from 'vitest';
import { FIRST_NAMES, LAST_NAMES } from '../envs/service/catalog';
import { SERVICE_LEVELS, serviceLevelFamily } from '../envs/service';
import type { ServiceTask } from '../envs/service/types';
import { ROUTING_FAMILIES } from '../envs/functionCalling/family';
import { runEpisode } from '../eval/rollout';
import { syntheticSftDocs } from '../pipeline/sftData';
import { ByteTokenizer } from '../tokenizer';
import type { ChatMessage } from '../tokenizer/chatTypes';
import { defaultRenderer } from '../train/rl/rollout';
import { Rng } from '../util/rng';
import { randomName, withRandomUser } from './randomUsers';

const POOL = new Set([...Object.values(FIRST_NAMES), ...Object.values(LAST_NAMES)].flat().map((n) => n.toLowerCase()));
const text = (ms: readonly ChatMessage[]) => JSON.stringify(ms);
const word = (w: string) => new RegExp(`(?<![A-Za-z])${w}(?![A-Za-z])`);

describe('renamed customers', () => {
  it('random names are name-shaped and never a first or last name of any split', () => {
    const rng = new Rng(3);
    const names = Array.from({ length: 2000 }, () => randomName(rng));
    for (const n of names) {
      expect(n).toMatch(/^[A-Z][a-z]{2,9}$/);
      expect(POOL.has(n.toLowerCase())).toBe(false);
    }
    expect(new Set(names).size).toBeGreaterThan(1500);
  });

  it('replace the customer everywhere and nothing else, at every level (renaming back gives the episode)', async () => {
    const rng = new Rng(11);
    let renamed = 0;
    for (const level of SERVICE_LEVELS) {
      const family = serviceLevelFamily(level);
      for (let i = 0; i < 12; i++) {
        const task = family.generateTask(1, i, 'train') as ServiceTask;
        const episode = await runEpisode(family, task, family.expertPolicy(task, i), { seed: i });
        const r = withRandomUser(task, episode.messages, rng);
        if (!r.renamed) continue;
        renamed++;
        const { firstName, lastName, email, userId } = task.user;
        const after = text(r.messages);
        // no trace of the old customer: the email and id anywhere, the names as words
        expect(after).not.toContain(email);
        expect(after).not.toContain(userId);
        expect(after).not.toMatch(word(firstName));
        expect(after).not.toMatch(word(lastName));
        expect(POOL.has(r.firstName.toLowerCase()) || POOL.has(r.lastName.toLowerCase())).toBe(false);
        expect(r.email).toMatch(new RegExp(`^${r.firstName.toLowerCase()}\\.${r.lastName.toLowerCase()}\\d+@`));
        expect(r.userId).toMatch(new RegExp(`^${r.firstName.toLowerCase()}_${r.lastName.toLowerCase()}_\\d+$`));
        // the user gives the new email (or name) and the agent's calls use it
        const said = r.messages.filter((m) => m.role === 'user').map((m) => m.content).join('\n');
        const calls = text(r.messages.filter((m) => m.role === 'assistant'));
        if (task.user.authVia === 'email') {
          expect(said).toContain(r.email);
          expect(calls).toContain(r.email);
        } else {
          expect(said).toMatch(word(r.firstName));
          expect(calls).toContain(r.firstName);
        }
        // renaming back restores every message exactly: only the customer changed
        const back = (s: string) => s.split(r.email).join(email).split(r.userId).join(userId).replace(new RegExp(word(r.firstName).source, 'g'), firstName).replace(new RegExp(word(r.lastName).source, 'g'), lastName);
        expect(back(after)).toBe(text(episode.messages));
        expect(r.messages).toHaveLength(episode.messages.length);
      }
    }
    expect(renamed).toBeGreaterThan(40);
  });

  it('leave lower-case words alone ("brown" the colour when the customer is Brown) and refuse a name in the system prompt', () => {
    const task = { user: { firstName: 'Grace', lastName: 'Brown', email: 'grace.brown42@post.org', userId: 'grace_brown_1234', zip: '10001', authVia: 'email' } } as ServiceTask;
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Help the customer.' },
      { role: 'user', content: "I'm Grace Brown, grace.brown42@post.org. Is the brown lamp shipped?" },
      { role: 'assistant', content: 'Looking it up.', tool_calls: [{ type: 'function', function: { name: 'find_user_id_by_email', arguments: { email: 'grace.brown42@post.org' } } }] },
      { role: 'tool', content: '"grace_brown_1234"', name: 'find_user_id_by_email' },
      { role: 'tool', content: '{"options": {"color": "brown"}, "user_id": "grace_brown_1234"}', name: 'get_order_details' },
    ];
    const r = withRandomUser(task, messages, new Rng(1));
    if (!r.renamed) throw new Error(r.reason);
    const [f, l] = [r.firstName, r.lastName];
    const e = `${f.toLowerCase()}.${l.toLowerCase()}42@post.org`;
    const id = `${f.toLowerCase()}_${l.toLowerCase()}_1234`;
    expect(r.messages[1].content).toBe(`I'm ${f} ${l}, ${e}. Is the brown lamp shipped?`);
    expect(r.messages[2].tool_calls?.[0].function.arguments).toEqual({ email: e });
    expect(r.messages[3].content).toBe(`"${id}"`);
    expect(r.messages[4].content).toBe(`{"options": {"color": "brown"}, "user_id": "${id}"}`);
    expect(messages[1].content).toContain('Grace Brown'); // the input is not modified

    const withName = [{ role: 'system' as const, content: 'Say Grace before meals.' }, ...messages.slice(1)];
    const refused = withRandomUser(task, withName, new Rng(1));
    expect(refused.renamed).toBe(false);
    expect(refused.messages).toEqual(withName);
    if (!refused.renamed) expect(refused.reason).toMatch(/system prompt/);
  });

  it('the SFT set renames about the asked share of service conversations, and none of another family', async () => {
    const tok = new ByteTokenizer();
    const family = serviceLevelFamily('status');
    const { docs, report } = await syntheticSftDocs(family, 60, 1, tok, defaultRenderer(tok), 8192, undefined, { randomUsers: 0.5 });
    expect(docs).toHaveLength(60);
    expect(report.randomUsers).toBeGreaterThan(18);
    expect(report.randomUsers).toBeLessThan(42);
    const plain = await syntheticSftDocs(family, 60, 1, tok, defaultRenderer(tok), 8192);
    expect(plain.report.randomUsers).toBeUndefined();
    // the same tasks and experts: renamed conversations differ, the others are the same documents
    const same = docs.filter((d, i) => d.ids.join() === plain.docs[i].ids.join()).length;
    expect(same).toBe(60 - report.randomUsers!);
    const routing = await syntheticSftDocs(ROUTING_FAMILIES.route4, 20, 1, tok, defaultRenderer(tok), 768, undefined, { randomUsers: 1 });
    expect(routing.report.randomUsers).toBe(0);
  });
});
