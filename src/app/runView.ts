// What the page shows of one run — charts, trajectories, evaluations and summary, the run log —
// fed by the run's events, live (this tab's run, a run watched in another tab) or replayed from the
// run history. The same event stream always gives the same view.
import type { PipelineConfig } from '../pipeline/config';
import type { EpisodeView, PageRunEvent, PageRunResult } from '../workers/runEvents';
import { RunSeries } from './runSeries';
import type { ChartsPanel } from './ui/chartsPanel';
import type { ResultsPanel } from './ui/resultsPanel';
import type { RunLog } from './ui/runLog';
import type { TrajectoryBrowser } from './ui/trajectoryBrowser';

export interface RunViewParts {
  charts: ChartsPanel;
  browser: TrajectoryBrowser;
  results: ResultsPanel;
  log: RunLog;
}

const episodeKey = (e: EpisodeView) => `${e.source}|${e.stage}|${e.step}|${e.label}|${e.group}|${e.sample}|${e.taskId}`;

export function stageNames(cfg: PipelineConfig): string[] {
  return cfg.stages.map((s, i) => `${i + 1}. ${s.kind === 'sft' ? 'SFT' : s.kind === 'grpo' ? 'GRPO' : s.kind === 'merge' ? `merge (${s.method})` : `eval "${s.label}"`}`);
}

/** The log line an event leaves (null: none). */
export function logLine(e: PageRunEvent): { text: string; kind: 'info' | 'ok' | 'bad' } | null {
  switch (e.kind) {
    case 'phase':
      return { text: `== ${e.stage !== null ? `stage ${e.stage + 1}: ` : ''}${e.detail}`, kind: 'info' };
    case 'check':
      return { text: `${e.ok ? 'ok  ' : 'FAIL'} ${e.name} (rel err ${e.relErr.toExponential(1)})`, kind: e.ok ? 'ok' : 'bad' };
    case 'sft':
      return { text: `SFT step ${e.step}/${e.totalSteps} loss ${e.loss.toFixed(4)} lr ${e.lr.toExponential(1)} |g| ${e.gradNorm.toFixed(2)} ${e.tokensPerSec.toFixed(0)} tok/s${e.skipped ? ' (skipped: non-finite)' : ''}`, kind: e.skipped ? 'bad' : 'info' };
    case 'grpo': {
      const m = e.metrics;
      return { text: `GRPO step ${e.step}/${e.totalSteps} sampled train success ${((m.success_rate ?? 0) * 100).toFixed(0)} % reward ${(m.reward ?? 0).toFixed(3)} dropped ${m.groups_dropped ?? 0} KL ${(m.approx_kl ?? 0).toExponential(1)} entropy ${(m.entropy ?? 0).toFixed(3)}${e.skipped ? ` — update skipped: ${e.reason ?? ''}` : ''}`, kind: e.skipped ? 'bad' : 'info' };
    }
    case 'log':
      // the runner's own step lines repeat the step events above
      return /^(sft|grpo) step /.test(e.line) ? null : { text: e.line, kind: 'info' };
    case 'saved':
      return { text: `checkpoint saved after stage ${e.stage + 1} step ${e.step} (${(e.bytes / 1e6).toFixed(1)} MB, ${e.seconds.toFixed(1)} s)`, kind: 'ok' };
    case 'resumed':
      return { text: `resumed from checkpoint ${e.checkpoint} (stage ${e.stage + 1}, step ${e.step})`, kind: 'ok' };
    case 'done':
      return { text: `done in ${e.result.seconds.toFixed(1)} s`, kind: 'ok' };
    default:
      return null;
  }
}

export class RunView {
  series = new RunSeries();
  private seen = new Set<string>();
  private config: PipelineConfig | null = null;

  constructor(private readonly parts: RunViewParts) {}

  reset(config: PipelineConfig | null): void {
    this.config = config;
    this.series = new RunSeries();
    this.seen.clear();
    this.parts.charts.refresh(this.series);
    this.parts.browser.reset();
    this.parts.results.reset();
    this.parts.log.clear();
  }

  /** Episodes not shown yet (a resumed or watched run may send some again). */
  private fresh(eps: readonly EpisodeView[]): EpisodeView[] {
    return eps.filter((e) => {
      const k = episodeKey(e);
      if (this.seen.has(k)) return false;
      this.seen.add(k);
      return true;
    });
  }

  apply(e: PageRunEvent): void {
    if (this.series.add(e)) this.parts.charts.refresh(this.series);
    const line = logLine(e);
    if (line) this.parts.log.add(line.text, line.kind);
    if (e.kind === 'episodes') this.parts.browser.add(this.fresh(e.episodes));
    else if (e.kind === 'eval') this.parts.results.addEval(e.summary);
    else if (e.kind === 'resumed') {
      this.parts.results.reset();
      for (const x of e.restored.evals) this.parts.results.addEval(x.summary);
    } else if (e.kind === 'done') this.showResult(e.result);
  }

  showResult(r: PageRunResult): void {
    this.parts.results.setResult(r, this.config ? stageNames(this.config) : []);
  }

  /** Replays a stored run (its events, then its episodes). */
  load(config: PipelineConfig, events: readonly PageRunEvent[], episodes: readonly EpisodeView[]): void {
    this.reset(config);
    for (const e of events) this.apply(e);
    this.parts.browser.reset(this.fresh(episodes));
  }
}
