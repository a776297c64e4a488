// "Load model": pick config.json + model.safetensors (or the model's folder), or give a URL base;
// loading streams with a byte progress bar; then the parameter count, the shape, any warnings and
// whether it trains here. The page sends the weights to the GPU worker for the next runs. A button per
// bundled model (bundledModels.ts) loads it from the page's own origin through the same URL path.
import type { DeviceLimits } from '../../model/memoryPlan';
import { countParameters } from '../../model/parameters';
import { filesFromZip, importHfModel } from '../../storage/export/importModel';
import { type LoadProgress, type LoadedModelInfo, checkTrainable, formatCount, loadModelFromFiles, loadModelFromUrl, modelUrlBase } from '../modelSource';
import { formatBytes } from '../../model/parameters';
import { BUNDLED_MODELS, type BundledModel, bundledModelPath } from '../../model/bundledModels';
import { h, panel } from './dom';

export interface ModelPanel {
  el: HTMLElement;
  /** Called with a loaded model; may throw (the message is shown). */
  onLoaded(cb: (m: LoadedModelInfo) => Promise<void>): void;
  onError(cb: (message: string | null) => void): void;
  onUnload(cb: () => void): void;
  /** Called whenever what the next run starts from may have changed (load, unload, the checkbox). */
  onStateChange(cb: () => void): void;
  /** Re-checks the fit for the current adapter and run settings. */
  updateFit(limits: DeviceLimits | null, run: { batchSize: number; seqLen: number; referenceCopy?: boolean; episodeTokens?: number } | null): void;
  /** Loads a bundled model as its button does; false when it failed (the error is shown). */
  loadBundled(m: BundledModel): Promise<boolean>;
  /** The bundled model `id` loaded and ticked for the next run (a config's start): loads it unless it already is; false when that failed. */
  ensureBundled(id: string): Promise<boolean>;
  /** A run whose config names no start: a model ticked only because an earlier config's start loaded it is unticked (the seeded init it asks for). */
  releaseConfigStart(): void;
  /** Whether runs should start from the loaded model. */
  useLoaded(): boolean;
  /** Forget the model (e.g. the worker was restarted); `why` is shown. */
  forget(why: string): void;
  /** Whether a model is loaded (in the worker). */
  hasModel(): boolean;
  setDisabled(disabled: boolean): void;
  /** What "Download the trained model" offers (null: nothing trained yet). */
  setTrained(label: string | null): void;
  onExport(cb: () => Promise<void>): void;
}

export function createModelPanel(): ModelPanel {
  const files = h('input', { testid: 'model-files', attrs: { type: 'file', multiple: '', accept: '.json,.safetensors', id: 'model-files' } });
  const folder = h('input', { testid: 'model-folder', attrs: { type: 'file', id: 'model-folder' } });
  const zip = h('input', { testid: 'model-zip', attrs: { type: 'file', accept: '.zip,application/zip', id: 'model-zip' } });
  const exportButton = h('button', { text: 'Download the trained model (HF folder, zip)', testid: 'export-trained', attrs: { type: 'button' } });
  const exportStatus = h('span', { class: 'muted', testid: 'export-status', attrs: { 'aria-live': 'polite' }, text: 'Nothing trained yet.' });
  folder.webkitdirectory = true;
  const url = h('input', { testid: 'model-url', attrs: { type: 'url', placeholder: 'https://…/my-model/ (holds config.json and model.safetensors)', 'aria-label': 'Model URL base' } });
  const urlButton = h('button', { text: 'Load from URL', testid: 'model-url-load', attrs: { type: 'button' } });
  const bundledButtons = BUNDLED_MODELS.map((m) => h('button', { text: m.label, testid: `bundled-${m.id}`, attrs: { type: 'button', title: m.description } }));
  const bar = h('progress', { testid: 'model-progress', attrs: { max: '1', value: '0', 'aria-label': 'Model loading progress' } });
  const progressText = h('span', { class: 'progress-text', testid: 'model-progress-text' });
  const progress = h('div', { class: 'progress-row model-progress' }, bar, progressText);
  progress.hidden = true;
  const info = h('div', { class: 'model-info', testid: 'model-info' });
  const use = h('input', { testid: 'use-loaded', attrs: { type: 'checkbox', id: 'use-loaded' } });
  const unload = h('button', { text: 'Unload', testid: 'model-unload', attrs: { type: 'button' } });
  const useRow = h('div', { class: 'use-row' }, h('label', { class: 'inline', attrs: { for: 'use-loaded' } }, use, ' Start runs from the loaded model (instead of random init)'), unload);
  useRow.hidden = true;

  const el = panel('Load model', 'model-panel',
    h('p', { class: 'hint', text: 'A Qwen3-layout Hugging Face model: config.json + model.safetensors (F32, F16 or BF16). Nothing leaves this tab.' }),
    h('div', { class: 'pickers' },
      h('label', { class: 'file-pick', attrs: { for: 'model-files' } }, h('span', { text: 'Files' }), files),
      h('label', { class: 'file-pick', attrs: { for: 'model-folder' } }, h('span', { text: 'Folder' }), folder),
      h('label', { class: 'file-pick', attrs: { for: 'model-zip' } }, h('span', { text: 'Zip' }), zip)),
    h('div', { class: 'url-row' }, url, urlButton),
    h('div', { class: 'bundled-row' }, h('span', { class: 'muted', text: 'Shipped with TabForge: ' }), ...bundledButtons),
    progress, info, useRow,
    h('div', { class: 'export-row' }, exportButton, exportStatus));
  let exportCb: () => Promise<void> = async () => {};
  exportButton.disabled = true;
  exportButton.addEventListener('click', async () => {
    exportButton.disabled = true;
    exportStatus.textContent = 'preparing the zip…';
    try {
      await exportCb();
      exportStatus.textContent = 'downloaded';
    } catch (e) {
      exportStatus.textContent = `export failed: ${e instanceof Error ? e.message : String(e)}`;
    } finally {
      exportButton.disabled = false;
    }
  });

  let loadedCb: (m: LoadedModelInfo) => Promise<void> = async () => undefined;
  let errorCb: (message: string | null) => void = () => undefined;
  let unloadCb: () => void = () => undefined;
  let stateCb: () => void = () => undefined;
  use.addEventListener('change', () => {
    forConfigStart = false; // the user's choice from now on
    stateCb();
  });
  /** What is loaded in the worker (metadata only: the arrays were transferred there). */
  let current: Omit<LoadedModelInfo, 'params'> | null = null;
  /** `current` was loaded for a config's start, not picked by the user. */
  let forConfigStart = false;
  let lastFit: [DeviceLimits | null, { batchSize: number; seqLen: number; referenceCopy?: boolean; episodeTokens?: number } | null] = [null, null];
  const fitList = h('ul', { class: 'fit', testid: 'model-fit' });

  const onProgress: LoadProgress = ({ phase, loadedBytes, totalBytes }) => {
    const f = totalBytes > 0 ? Math.min(1, loadedBytes / totalBytes) : 0;
    bar.value = f;
    const verb = phase === 'download' ? 'downloading' : 'reading tensors';
    progressText.textContent = `${verb}: ${formatBytes(loadedBytes)}${totalBytes ? ` / ${formatBytes(totalBytes)} (${Math.round(100 * f)} %)` : ''}`;
    progress.dataset.percent = String(Math.round(100 * f));
  };

  const setBusy = (busy: boolean) => {
    for (const c of [files, folder, zip, url, urlButton, unload, ...bundledButtons]) c.disabled = busy;
    el.dataset.busy = String(busy);
  };

  const renderFit = () => {
    fitList.replaceChildren();
    if (!current) return;
    const [limits, run] = lastFit;
    if (!run) {
      fitList.append(h('li', { class: 'bad', text: 'fix the run configuration to see whether it fits' }));
      return;
    }
    const check = checkTrainable(current.cfg, run, limits);
    fitList.dataset.ok = String(check.ok);
    check.lines.forEach((line, i) => fitList.append(h('li', { class: i === 0 ? '' : line.startsWith('fits') ? 'good' : line.startsWith('fit unknown') ? 'muted' : 'bad', text: line })));
  };

  const showInfo = (m: Omit<LoadedModelInfo, 'params'>) => {
    const c = m.cfg;
    const dl = h('dl', {},
      h('dt', { text: 'Source' }), h('dd', { text: m.source }),
      h('dt', { text: 'Parameters' }), h('dd', { testid: 'model-params', text: `${formatCount(m.parameters)} (${m.parameters.toLocaleString('en')})` }),
      h('dt', { text: 'Shape' }), h('dd', { text: `${c.numLayers} layer${c.numLayers === 1 ? '' : 's'} · hidden ${c.hiddenSize} · MLP ${c.intermediateSize} · heads ${c.numHeads}/${c.numKvHeads} kv × ${c.headDim} · vocab ${c.vocabSize}${c.tieWordEmbeddings ? ' · tied embeddings' : ''} · context ${c.maxPositionEmbeddings}` }),
      h('dt', { text: 'File' }), h('dd', { text: formatBytes(m.fileBytes) }),
      h('dt', { text: 'Tokenizer' }), h('dd', { text: c.tokenizer }));
    const warnings = m.warnings.length ? h('ul', { class: 'warnings', testid: 'model-warnings' }, ...m.warnings.map((w) => h('li', { text: w }))) : null;
    info.replaceChildren(dl, ...(warnings ? [warnings] : []), fitList);
  };

  /** Loads, shows and hands the model to the worker; false when it failed (the error is shown, the previous model kept). */
  const run = async (load: () => Promise<LoadedModelInfo>): Promise<boolean> => {
    setBusy(true);
    errorCb(null);
    progress.hidden = false;
    bar.value = 0;
    progressText.textContent = 'starting…';
    const previous = current;
    const previousForStart = forConfigStart;
    try {
      const m = await load();
      forConfigStart = false;
      const { params: _params, ...meta } = m;
      current = meta;
      showInfo(meta);
      renderFit();
      const loadedText = progressText.textContent;
      progressText.textContent = `${loadedText} · sending to the GPU worker…`;
      await loadedCb(m);
      progressText.textContent = `${loadedText} · loaded`;
      useRow.hidden = false;
      use.checked = true;
      el.dataset.loaded = 'true';
      stateCb();
      return true;
    } catch (e) {
      errorCb(e instanceof Error ? e.message : String(e));
      progressText.textContent = previous ? `failed (see the error above); still loaded: ${previous.source}` : 'failed: see the error above';
      bar.value = 0;
      current = previous; // the worker still holds the previous model, if any
      forConfigStart = previousForStart;
      if (previous) {
        showInfo(previous);
        renderFit();
      } else info.replaceChildren();
      return false;
    } finally {
      setBusy(false);
    }
  };

  files.addEventListener('change', () => {
    const list = [...(files.files ?? [])];
    if (list.length) void run(() => loadModelFromFiles(list, onProgress)).then(() => (files.value = ''));
  });
  folder.addEventListener('change', () => {
    const list = [...(folder.files ?? [])];
    if (list.length) void run(() => loadModelFromFiles(list, onProgress)).then(() => (folder.value = ''));
  });
  zip.addEventListener('change', () => {
    const f = zip.files?.[0];
    if (f) void run(async () => {
      const m = await importHfModel(await filesFromZip(new Uint8Array(await f.arrayBuffer())));
      return { ...m, source: f.name, parameters: countParameters(m.cfg), fileBytes: f.size };
    }).then(() => (zip.value = ''));
  });
  const fromUrl = () => void run(async () => loadModelFromUrl(modelUrlBase(url.value, location.href), onProgress));
  urlButton.addEventListener('click', fromUrl);
  url.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') fromUrl();
  });
  const bundledUrl = (m: BundledModel) => modelUrlBase(bundledModelPath(m), location.href);
  const loadBundled = (m: BundledModel) => run(async () => loadModelFromUrl(bundledUrl(m), onProgress));
  const ensureBundled = async (id: string) => {
    const m = BUNDLED_MODELS.find((b) => b.id === id);
    if (!m) {
      errorCb(`no bundled model named ${id} (this build ships ${BUNDLED_MODELS.map((b) => b.id).join(', ')})`);
      return false;
    }
    if (current?.source === bundledUrl(m) && (use.checked || forConfigStart)) {
      use.checked = true;
      stateCb();
      return true;
    }
    const ok = await loadBundled(m);
    if (ok) forConfigStart = true;
    return ok;
  };
  const releaseConfigStart = () => {
    if (!forConfigStart || !use.checked) return;
    use.checked = false;
    stateCb();
  };
  bundledButtons.forEach((b, i) => b.addEventListener('click', () => void loadBundled(BUNDLED_MODELS[i])));

  const forget = (why: string) => {
    current = null;
    delete el.dataset.loaded;
    useRow.hidden = true;
    use.checked = false;
    progress.hidden = true;
    info.replaceChildren(h('p', { class: 'muted', text: why }));
    stateCb();
  };
  unload.addEventListener('click', () => {
    forget('Model unloaded: runs start from random initial weights.');
    unloadCb();
  });

  return {
    el,
    onLoaded: (cb) => void (loadedCb = cb),
    onError: (cb) => void (errorCb = cb),
    onUnload: (cb) => void (unloadCb = cb),
    onStateChange: (cb) => void (stateCb = cb),
    updateFit(limits, runCfg) {
      lastFit = [limits, runCfg];
      renderFit();
    },
    loadBundled,
    ensureBundled,
    releaseConfigStart,
    useLoaded: () => current !== null && use.checked,
    forget,
    hasModel: () => current !== null,
    setDisabled: (d) => setBusy(d),
    setTrained(label) {
      exportButton.disabled = label === null;
      exportStatus.textContent = label === null ? 'Nothing trained yet.' : `Trained: ${label}.`;
    },
    onExport: (cb) => void (exportCb = cb),
  };
}
