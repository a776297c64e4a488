// Issue 16's keyboard-only flow (both CPU adapters): Tab walks the pipeline editor and the run panel
// in document order with a visible focus ring on every control, each control has a name, nothing
// traps focus; the form is then edited and a run started and stopped with Tab, Shift+Tab, Enter,
// Space, arrow keys and typing alone — no mouse, no element.focus(). Focus survives the editor's
// re-renders (adding, removing and moving stages, changing a family) and Start/Stop swapping.
import { expect, type Page, test } from '@playwright/test';
import { openPage } from './pageKit';
import { ONE_ADAPTER } from './tags';

interface Focused {
  key: string;
  tag: string;
  name: string;
  /** The focus ring: an outline or a box shadow while :focus-visible. */
  ring: boolean;
  visible: boolean;
  panel: string | null;
}

/** What has focus now (null: nothing, the body). */
function focused(page: Page): Promise<Focused | null> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return null;
    const cs = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    const labelled = el.getAttribute('aria-labelledby');
    const name = (el.getAttribute('aria-label') ?? (labelled ? document.getElementById(labelled)?.textContent : null)
      ?? ((el as HTMLInputElement).labels?.[0]?.textContent) ?? el.textContent ?? el.getAttribute('title') ?? '').trim();
    return {
      key: el.id ? `#${el.id}` : el.dataset.testid ? `[data-testid="${el.dataset.testid}"]` : `${el.tagName.toLowerCase()}[aria-label="${el.getAttribute('aria-label')}"]`,
      tag: el.tagName.toLowerCase(), name,
      ring: el.matches(':focus-visible') && ((cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2) || cs.boxShadow !== 'none'),
      visible: r.width > 0 && r.height > 0 && cs.visibility !== 'hidden',
      panel: el.closest<HTMLElement>('section[data-testid]')?.dataset.testid ?? null,
    };
  });
}

/** Tab (or Shift+Tab) until `selector` has focus; fails after `max` presses. Returns the presses. */
async function tabTo(page: Page, selector: string, back = false, max = 200): Promise<number> {
  for (let k = 1; k <= max; k++) {
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return k;
  }
  throw new Error(`${selector} was not reached with ${back ? 'Shift+' : ''}Tab in ${max} presses`);
}

/** Replaces the focused text field's value by typing. */
async function typeInto(page: Page, text: string): Promise<void> {
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(text);
}

/** The same key as focused() for each enabled, rendered, tabbable control of the editor and the run panel, in document order. */
function controlsInOrder(page: Page): Promise<string[]> {
  return page.evaluate(() => [...document.querySelectorAll<HTMLElement>('section[data-testid="config-panel"], section[data-testid="run-panel"]')]
    .flatMap((p) => [...p.querySelectorAll<HTMLElement>('button, input, select, textarea, summary, a[href], [tabindex]')])
    .filter((el) => {
      const closed = el.closest('details:not([open])'); // a closed <details> shows only its summary
      if (closed && !(el.tagName === 'SUMMARY' && el.parentElement === closed)) return false;
      return !(el as HTMLButtonElement).disabled && el.tabIndex >= 0 && el.checkVisibility({ visibilityProperty: true });
    })
    .map((el) => (el.id ? `#${el.id}` : el.dataset.testid ? `[data-testid="${el.dataset.testid}"]` : `${el.tagName.toLowerCase()}[aria-label="${el.getAttribute('aria-label')}"]`)));
}

const focusedKey = async (page: Page) => (await focused(page))?.key ?? null;

test('keyboard only: every control of the editor and the run panel in order with a visible focus; the form edited and a run started and stopped', ONE_ADAPTER, async ({ page }, info) => {
  test.setTimeout(420_000);
  await openPage(page, info);
  // 1. one Tab walk from the top of the page: nothing traps focus, every stop shows a focus ring and has a name
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const walk: Focused[] = [];
  for (let k = 0; k < 400; k++) {
    await page.keyboard.press('Tab');
    const f = await focused(page);
    if (f === null || (walk.length > 0 && f.key === walk[0].key)) break; // left the page, or wrapped: no trap
    walk.push(f);
  }
  expect(walk.length).toBeGreaterThan(100);
  expect(walk.length).toBeLessThan(400);
  expect(walk.filter((f) => !f.visible || !f.ring).map((f) => f.key), 'focused without a visible focus ring').toEqual([]);
  expect(walk.filter((f) => f.name === '').map((f) => f.key), 'focusable without a name').toEqual([]);
  // the editor and the run panel: every enabled control is a stop, in document order (no tabindex reordering)
  const inForm = walk.filter((f) => f.panel === 'config-panel' || f.panel === 'run-panel').map((f) => f.key);
  expect(inForm).toEqual(await controlsInOrder(page));
  expect(inForm).toEqual(expect.arrayContaining(['[data-testid="example-merge"]', '#pf-lora-rank', '#pf-stages-0-specialists', '[data-testid="add-merge"]', '[data-testid="start"]']));
  // and back: Shift+Tab from Start reaches the control before it
  await tabTo(page, '[data-testid="start"]');
  await page.keyboard.press('Shift+Tab');
  expect(await focusedKey(page)).toBe('[data-testid="add-eval"]');

  // 2. the form, with keys only: an example, fields typed, a select by arrow keys, a checkbox by Space
  await tabTo(page, '[data-testid="example-routing"]');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('example-summary')).toContainText('about 6 minutes');
  await tabTo(page, '#pf-seed');
  await typeInto(page, '7');
  // structural edits keep the keyboard's place: a task set added and removed
  await tabTo(page, '[data-testid="add-task"]');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('task-row')).toHaveCount(2);
  expect(await focusedKey(page)).toBe('[data-testid="add-task"]');
  await tabTo(page, 'button[aria-label="Remove task set 2"]', true);
  await page.keyboard.press('Space');
  await expect(page.getByTestId('task-row')).toHaveCount(1);
  expect(await focusedKey(page)).toBe('[data-testid="add-task"]'); // "Remove task set 1" is off with one task set left
  await tabTo(page, '#pf-stages-0-steps');
  await typeInto(page, '2');
  await tabTo(page, '#pf-stages-0-data-examples');
  await typeInto(page, '8');
  await tabTo(page, '#pf-stages-1-split');
  await page.keyboard.press('ArrowUp');
  await expect(page.locator('#pf-stages-1-split')).toHaveValue('validation');
  await page.keyboard.press('ArrowDown');
  await expect(page.locator('#pf-stages-1-split')).toHaveValue('test');
  await tabTo(page, '#pf-stages-1-n');
  await typeInto(page, '2');
  await tabTo(page, '#pf-stages-1-baselines');
  await page.keyboard.press('Space');
  await expect(page.locator('#pf-stages-1-baselines')).not.toBeChecked();
  for (const [id, v] of [['#pf-stages-2-steps', '1'], ['#pf-stages-2-tasksPerStep', '2'], ['#pf-stages-2-groupSize', '2'], ['#pf-stages-3-n', '2']]) {
    await tabTo(page, id);
    await typeInto(page, v);
  }
  // a stage added, moved up and back down, removed: focus follows each time
  await tabTo(page, '[data-testid="add-eval"]');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('stages').locator('fieldset.stage')).toHaveCount(5);
  expect(await focusedKey(page)).toBe('[data-testid="add-eval"]');
  await tabTo(page, 'button[aria-label="Move stage 5 up"]', true);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('stage-3')).toHaveClass(/stage-eval/);
  expect(await focusedKey(page)).toBe('button[aria-label="Move stage 4 up"]');
  await tabTo(page, 'button[aria-label="Move stage 4 down"]');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('stage-3')).toHaveClass(/stage-eval/);
  await expect(page.getByTestId('stage-4')).toHaveClass(/stage-eval/);
  expect(await focusedKey(page)).toBe('button[aria-label="Move stage 5 up"]'); // "down" is off on the last stage
  await tabTo(page, '[data-testid="remove-stage-4"]');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('stages').locator('fieldset.stage')).toHaveCount(4);
  expect(await focusedKey(page)).toBe('[data-testid="remove-stage-3"]');
  await expect(page.getByTestId('error-form')).toBeEmpty();

  // 3. run settings (a <details>: Enter opens it), then Start; focus moves to Stop, and back to Start
  await tabTo(page, 'details.run-settings-fold > summary');
  await page.keyboard.press('Enter');
  await tabTo(page, '#run-selfcheck');
  await page.keyboard.press('Space');
  await expect(page.locator('#run-selfcheck')).not.toBeChecked();
  await tabTo(page, '#run-autosave');
  await typeInto(page, '0');
  await tabTo(page, '[data-testid="start"]', true);
  expect((await focused(page))!.ring).toBe(true);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('run-controls')).toHaveAttribute('data-state', 'running');
  expect(await focusedKey(page)).toBe('[data-testid="stop"]');
  await expect(page.getByTestId('run-status')).toContainText(/SFT step \d\/2/, { timeout: 240_000 }); // the typed steps reached the run
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('run-controls')).toHaveAttribute('data-state', 'idle', { timeout: 120_000 });
  expect(await focusedKey(page)).toBe('[data-testid="start"]');
});
