// Which sources use a metric or a preset, worked out from the sources and presets lists: the
// metric and preset pages count them, the overview filters to them (#/?using=metric:NAME).

/** name -> sources using it (through their preset or their own intervals). */
export function usage(sources, presets) {
  const byPreset = Object.fromEntries(presets.map(p => [p.name, p.metrics]));
  const metrics = {}, presetUsers = {};
  for (const s of sources) {
    const used = new Set();
    for (const preset of [s.preset, s.standbyPreset]) {
      if (!preset) continue;
      (presetUsers[preset] ??= new Set()).add(s.name);
      Object.keys(byPreset[preset] || {}).forEach(m => used.add(m));
    }
    Object.entries({...s.metrics, ...s.standbyMetrics}).forEach(([m, interval]) => interval > 0 && used.add(m));
    used.forEach(m => (metrics[m] ??= new Set()).add(s.name));
  }
  return {metrics, presets: presetUsers};
}

/** The names of the sources using `what` ('metric:NAME' or 'preset:NAME'), or null when `what` is not such. */
export function sourcesUsing(what, sources, presets) {
  const match = /^(metric|preset):(.+)$/.exec(what || '');
  if (!match) return null;
  const found = usage(sources, presets)[match[1] === 'metric' ? 'metrics' : 'presets'][match[2]];
  return new Set(found || []);
}
