// What the page does, for someone who just opened it: one paragraph, the stages in a row with what
// each means (the help popovers say more), and what to press.
import { h } from './dom';
import { HELP, helpButton } from './help';

export function createIntro(): HTMLElement {
  const stage = (name: string, text: string, key: 'sft' | 'grpo' | 'eval') => h('li', {}, h('strong', { text: name }), ` ${text} `, ...helpButton(name, key));
  const el = h('section', { class: 'intro', testid: 'intro', attrs: { 'aria-label': 'What this page does' } },
    h('p', { text: HELP.what }),
    h('ol', { class: 'stages-row' },
      stage('SFT', 'imitate verified expert conversations;', 'sft'),
      stage('GRPO', 'practise against the environment and learn from rewards;', 'grpo'),
      stage('Evaluation', 'score held-out tasks with intervals and baselines.', 'eval')),
    h('p', { class: 'muted' }, 'Pick an example pipeline below and press Start; charts, the trajectories and a playground follow the run. ', ...helpButton('held-out', 'heldOut')));
  return el;
}
