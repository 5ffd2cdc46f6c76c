//! Thin PyO3 bindings: build a simulation from scenario text, run it in steps (so Python can
//! draw a progress bar), and hand back result tables as raw column buffers that the Python side
//! wraps as NumPy / Arrow without copying row by row.

use pinchpoint_core::metrics::table::{ColumnData, Table};
use pinchpoint_core::queue::QueueConfig;
use pinchpoint_core::scenario::schema::TcpConfig;
use pinchpoint_core::transport::tcp::cc::CcConfig;
use pinchpoint_core::scenario::{self, presets, Scenario};
use pinchpoint_core::sim::{ps_to_secs, secs_to_ps};
use pinchpoint_core::Simulation;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};
use sha2::{Digest, Sha256};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::thread::JoinHandle;

/// Rust allocations of the module (scenario parsing and building, the run's state, result
/// tables) go to mimalloc rather than glibc's malloc: allocation was about 15 % of the CLI's CPU
/// time beyond the loop at 100,000 flows (issue 13; bench/README.md). Python's own objects keep
/// Python's allocator. mimalloc is built without its transparent-huge-page advice (`no_thp` in
/// Cargo.toml): the 2 MiB page faults of its arenas cost more than the allocator saves.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

create_exception!(pinchpoint._native, ScenarioError, PyValueError, "A scenario is invalid: the message names the file, the field and what was expected.");
create_exception!(pinchpoint._native, ResourceLimitError, ScenarioError, "A run stopped at a resource bound (live packets, a shaper's backlog): the message names the bound.");

fn parse(text: &str, origin: &str, fmt: &str) -> PyResult<Scenario> {
    let r = match fmt {
        "toml" => scenario::from_toml_str(text, origin),
        "json" => scenario::from_json_str(text, origin),
        other => return Err(PyValueError::new_err(format!("unknown scenario format '{other}' (toml or json)"))),
    };
    r.map_err(|e| ScenarioError::new_err(e.to_string()))
}

/// Validates scenario text; returns the resolved scenario as TOML (defaults filled in).
#[pyfunction]
#[pyo3(signature = (text, origin, fmt = "toml"))]
fn validate(py: Python<'_>, text: &str, origin: &str, fmt: &str) -> PyResult<String> {
    // Building also checks routes (reachability, loops); the text is written meanwhile.
    py.detach(|| {
        let sc = parse(text, origin, fmt)?;
        let (built, resolved) = build_beside(&sc, origin, scenario::to_toml_string);
        built.map(|_| resolved).map_err(ScenarioError::new_err)
    })
}

/// Builds the scenario (to check it) on this thread while `text` of it is made on another, as
/// `Simulation` does for its texts; a text writer like theirs (a fork waits for it).
fn build_beside<T: Send>(sc: &Scenario, origin: &str, text: impl Fn(&Scenario) -> T + Sync) -> (Result<Simulation, String>, T) {
    let text = &text;
    std::thread::scope(|scope| {
        let writer = text_writer_thread().spawn_scoped(scope, counted_as_text_writer(move || text(sc)));
        let built = pinchpoint_core::build(sc, None, origin).map_err(|e| e.to_string());
        match writer {
            Ok(writer) => (built, writer.join().expect("the scenario's text writer does not panic")),
            // No thread to be had: the text is made here, after the build.
            Err(_) => (built, text(sc)),
        }
    })
}

/// Validates scenario text as [`validate`] does; returns the canonical form of the resolved
/// scenario that the run key hashes (UTF-8 bytes, `pinchpoint.store.key_of_canonical`) without
/// writing the resolved TOML, or None when only the text path can give it exactly.
#[pyfunction]
#[pyo3(signature = (text, origin, fmt = "toml"))]
fn canonical_scenario<'py>(py: Python<'py>, text: &str, origin: &str, fmt: &str) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let canonical = py.detach(|| {
        let sc = parse(text, origin, fmt)?;
        let (built, canonical) = build_beside(&sc, origin, scenario::canonical_json);
        built.map(|_| canonical).map_err(ScenarioError::new_err)
    })?;
    Ok(canonical.map(|c| PyBytes::new(py, c.as_bytes())))
}

/// TOML text as JSON text with the same values, or None (not TOML, a non-finite float or a
/// date-time): a fast path for reading resolved scenarios (`store.canonical_scenario`).
#[pyfunction]
fn toml_to_json(text: &str) -> Option<String> {
    scenario::toml_to_json(text)
}

/// The parts of a scenario that draw random numbers (`pinchpoint_core::scenario::random_parts`):
/// labels like `flows.f1.start_jitter` or `links.r1->r2.queue=red`; empty when every seed gives
/// the same run.
#[pyfunction]
#[pyo3(signature = (text, origin, fmt = "toml"))]
fn random_parts(text: &str, origin: &str, fmt: &str) -> PyResult<Vec<String>> {
    Ok(scenario::random_parts(&parse(text, origin, fmt)?))
}

/// The JSON Schema of the scenario format.
#[pyfunction]
fn json_schema() -> String {
    scenario::json_schema()
}

/// The benchmark dumbbell scenario as JSON; with `per_flow_bps`, the dumbbell whose bottleneck
/// is `n` x `per_flow_bps` with 10 packets of buffer per flow (`presets::dumbbell_scaled`).
#[pyfunction]
#[pyo3(signature = (n, sim_s, per_flow_bps = None))]
fn preset_dumbbell(n: usize, sim_s: f64, per_flow_bps: Option<f64>) -> PyResult<String> {
    let sc = match per_flow_bps {
        None => presets::dumbbell(n, sim_s),
        Some(r) if r.is_finite() && r > 0.0 => presets::dumbbell_scaled(n, sim_s, r),
        Some(r) => return Err(PyValueError::new_err(format!("per_flow_bps: expected a positive rate in bit/s, got {r}"))),
    };
    Ok(serde_json::to_string(&sc).expect("preset serialises"))
}

/// Ports and every flow's paths at time `t_s` (for the max-min calculator): a dict with
/// `ports` = [(name, rate_bps)] and `flows` = [(name, forward port indices, reverse port indices)].
#[pyfunction]
#[pyo3(signature = (text, origin, fmt = "toml", t_s = 0.0))]
fn paths_at<'py>(py: Python<'py>, text: &str, origin: &str, fmt: &str, t_s: f64) -> PyResult<Bound<'py, PyDict>> {
    let sc = parse(text, origin, fmt)?;
    let sim = pinchpoint_core::build(&sc, None, origin).map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let d = PyDict::new(py);
    let ports: Vec<(String, u64)> = sim.ports().iter().enumerate().map(|(i, p)| (sim.port_name(i as u32), p.rate_bps)).collect();
    d.set_item("ports", ports)?;
    let flows: Vec<(String, Vec<u32>, Vec<u32>)> = sim.paths_at(secs_to_ps(t_s)).into_iter().map(|f| (f.flow, f.forward, f.reverse)).collect();
    d.set_item("flows", flows)?;
    Ok(d)
}

/// The values a queue table runs with where the resolved scenario leaves a default out, for the
/// ns-3 translator: `kind`, the buffer limit in effect (`limit_pkts`, `limit_bytes`, either may
/// be None) and for RED the thresholds in effect (`min_th`, `max_th`, `th_in_bytes`). `table` is
/// the queue table as JSON (as in a resolved scenario); None stands for a link that gives no
/// queue (the port's default discipline). Only drop-tail, RED, CoDel, FQ-CoDel and PIE.
#[pyfunction]
#[pyo3(signature = (table = None))]
fn queue_in_effect<'py>(py: Python<'py>, table: Option<&str>) -> PyResult<Bound<'py, PyDict>> {
    let q: QueueConfig = match table {
        None => QueueConfig::default(),
        Some(t) => serde_json::from_str(t).map_err(|e| PyValueError::new_err(format!("queue table: {e}")))?,
    };
    let limit = q.limit_in_effect().ok_or_else(|| PyValueError::new_err("queue table: expected droptail, red, codel, fq_codel or pie"))?;
    let d = PyDict::new(py);
    d.set_item("kind", q.kind())?;
    d.set_item("limit_pkts", limit.limit_pkts)?;
    d.set_item("limit_bytes", limit.limit_bytes.map(|b| b.0))?;
    if let QueueConfig::Red(c) = &q {
        let th = c.thresholds();
        d.set_item("min_th", th.min)?;
        d.set_item("max_th", th.max)?;
        d.set_item("th_in_bytes", th.in_bytes)?;
    }
    Ok(d)
}

/// The controller a TCP flow runs when its `cc` is absent (the resolved scenario then leaves
/// `cc` out), as a JSON table with `kind` and every parameter, for the ns-3 translator.
#[pyfunction]
fn default_cc() -> String {
    serde_json::to_string(&CcConfig::default()).expect("a controller config serialises")
}

/// The units the scenario format reads, as (unit, kind, multiplier to the base unit): kinds
/// "rate" (bit/s), "duration" (s) and "size" (bytes). `pinchpoint.units` is built from these.
#[pyfunction]
fn unit_table() -> Vec<(&'static str, &'static str, f64)> {
    use pinchpoint_core::sim::units::{DURATION_UNITS_PS, RATE_UNITS, SIZE_UNITS};
    let rates = RATE_UNITS.iter().map(|&(u, m)| (u, "rate", m));
    let durations = DURATION_UNITS_PS.iter().map(|&(u, ps)| (u, "duration", ps / 1e12));
    let sizes = SIZE_UNITS.iter().map(|&(u, m)| (u, "size", m));
    rates.chain(durations).chain(sizes).collect()
}

/// The loss recovery a flow's `tcp` table (JSON, as in a resolved scenario) runs with, which the
/// resolved scenario leaves to these rules when `sack`, `recovery` or `prr` is absent: `sack`
/// (SACK blocks exchanged), `recovery` ("sack", "newreno" or "reno") and `prr` (RFC 6937 in SACK
/// recovery), for the ns-3 translator.
#[pyfunction]
fn tcp_in_effect<'py>(py: Python<'py>, table: &str) -> PyResult<Bound<'py, PyDict>> {
    let t: TcpConfig = serde_json::from_str(table).map_err(|e| PyValueError::new_err(format!("tcp table: {e}")))?;
    let d = PyDict::new(py);
    d.set_item("sack", t.sack_enabled())?;
    d.set_item("recovery", t.recovery_in_use().name())?;
    d.set_item("prr", t.prr_enabled())?;
    Ok(d)
}

/// A built simulation.
#[pyclass(name = "Simulation")]
struct PySimulation {
    sim: Simulation,
    /// The scenario as built (seed override applied), for the run key's canonical form; shared
    /// with the thread that writes its texts.
    scenario: Arc<Scenario>,
    /// The resolved TOML and the run key's hash, written on a second thread (see `new`).
    texts: Arc<PendingTexts>,
}

/// What a scenario's text writer makes: the resolved TOML and the SHA-256 of the canonical
/// form (`canonical_scenario`; None when only the text path can give that form exactly).
struct ScenarioTexts {
    resolved_toml: String,
    canonical_sha256: Option<Sha256>,
}

impl ScenarioTexts {
    fn of(sc: &Scenario) -> Self {
        ScenarioTexts {
            resolved_toml: scenario::to_toml_string(sc),
            canonical_sha256: scenario::canonical_json(sc).map(|c| Sha256::new().chain_update(c.as_bytes())),
        }
    }
}

/// A scenario's texts while their thread writes them, then the texts themselves. The thread
/// stores the texts in `done` itself, before it stops counting as a running writer: a process
/// forked after that (`wait_for_text_writers`) finds them there. Reading them through the
/// thread's join handle instead failed in such a child whenever the fork fell between the end of
/// the writer's closure and its thread handing the result over (the child has no copy of the
/// thread, so the handle held no result: "threads should not terminate unexpectedly").
struct PendingTexts {
    done: OnceLock<ScenarioTexts>,
    writer: Mutex<Option<JoinHandle<()>>>,
}

/// How many text writers are running, and the signal that one has ended: a fork waits until
/// none is (`wait_for_text_writers`). A child process has no copy of the writer's thread, so it
/// would wait for its texts forever, and the thread could hold the allocator's locks at the fork.
static TEXT_WRITERS_RUNNING: Mutex<usize> = Mutex::new(0);
static TEXT_WRITER_ENDED: Condvar = Condvar::new();

/// Registered with `pthread_atfork` when the module loads: runs in the forking thread before
/// `fork` (Python's `os.fork`, a `fork` start method of multiprocessing). New writers start only
/// from a thread holding the GIL, which the forking thread holds, so none starts meanwhile.
#[cfg(unix)]
extern "C" fn wait_for_text_writers() {
    let mut running = TEXT_WRITERS_RUNNING.lock().unwrap_or_else(|e| e.into_inner());
    while *running > 0 {
        running = TEXT_WRITER_ENDED.wait(running).unwrap_or_else(|e| e.into_inner());
    }
}

/// Counts a writer as running until dropped (at the end of its thread, even on a panic).
struct TextWriterRunning;

impl TextWriterRunning {
    fn new() -> Self {
        *TEXT_WRITERS_RUNNING.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        TextWriterRunning
    }
}

impl Drop for TextWriterRunning {
    fn drop(&mut self) {
        *TEXT_WRITERS_RUNNING.lock().unwrap_or_else(|e| e.into_inner()) -= 1;
        TEXT_WRITER_ENDED.notify_all();
    }
}

/// The thread a scenario's texts are written on.
fn text_writer_thread() -> std::thread::Builder {
    std::thread::Builder::new().name("pinchpoint-scenario-texts".into())
}

/// `write`, counted as a running text writer from now until it has run (on its thread), or until
/// it is dropped unrun (no thread could be started).
fn counted_as_text_writer<T>(write: impl FnOnce() -> T) -> impl FnOnce() -> T {
    let running = TextWriterRunning::new();
    move || {
        let _running = running;
        write()
    }
}

impl PendingTexts {
    fn start(sc: Arc<Scenario>) -> Arc<Self> {
        let pending = Arc::new(PendingTexts { done: OnceLock::new(), writer: Mutex::new(None) });
        let (for_thread, sc_for_thread) = (Arc::clone(&pending), Arc::clone(&sc));
        let write = counted_as_text_writer(move || {
            // Set before the closure returns and the running count drops (see the struct).
            let _ = for_thread.done.set(ScenarioTexts::of(&sc_for_thread));
        });
        match text_writer_thread().spawn(write) {
            Ok(writer) => *pending.writer.lock().unwrap_or_else(|e| e.into_inner()) = Some(writer),
            // No thread to be had (a process limit): the texts are written here and now. The
            // closure, with its running count, was dropped unrun.
            Err(_) => {
                let _ = pending.done.set(ScenarioTexts::of(&sc));
            }
        }
        pending
    }

    /// The texts, waiting for their thread the first time. Called without the GIL. The first
    /// caller to find the texts missing joins the thread (so a panic in it is raised here, not
    /// waited for forever); any other caller meanwhile waits for `done` to be set.
    fn wait(&self) -> &ScenarioTexts {
        if let Some(texts) = self.done.get() {
            return texts;
        }
        let writer = self.writer.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(writer) = writer {
            if let Err(panic) = writer.join() {
                std::panic::resume_unwind(panic);
            }
        }
        self.done.wait()
    }
}

impl PySimulation {
    fn texts(&self, py: Python<'_>) -> &ScenarioTexts {
        if self.texts.done.get().is_none() {
            let texts = Arc::clone(&self.texts);
            py.detach(move || {
                texts.wait();
            });
        }
        self.texts.wait()
    }
}

/// The run key from a SHA-256 that has hashed the canonical scenario: the seed (and the model
/// revision from revision 2 on) appended, the first 32 hex digits; what
/// `pinchpoint.store.key_of_canonical` makes in Python (a test holds them equal).
fn run_key_from(canonical: &Sha256, seed: u64, model_revision: u32) -> String {
    use std::fmt::Write;
    let mut h = canonical.clone();
    h.update(format!("\nseed={seed}").as_bytes());
    if model_revision != 1 {
        h.update(format!("\nmodel={model_revision}").as_bytes());
    }
    let mut key = String::with_capacity(64);
    for b in h.finalize().iter() {
        let _ = write!(key, "{b:02x}");
    }
    key.truncate(32);
    key
}

/// A column's values in the machine's byte order, handed to Python without a copy: it exports
/// them through the buffer protocol, read-only, and Arrow wraps that buffer
/// (`pa.py_buffer`), which keeps this object, and so the values, alive. Copying every column
/// into a `bytes` object was 200 MB at 100,000 flows (the ports table has 400,000 rows), and
/// each such allocation was fresh memory for the kernel to zero.
#[pyclass(frozen, name = "ColumnBuffer")]
struct ColumnBuffer {
    values: ColumnValues,
}

enum ColumnValues {
    F64(Vec<f64>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    I32(Vec<i32>),
    U8(Vec<u8>),
}

impl ColumnValues {
    fn bytes(&self) -> &[u8] {
        fn raw<T>(v: &[T]) -> &[u8] {
            // SAFETY: the element types are plain numbers without padding; the slice covers
            // exactly their memory and lives as long as `v`.
            unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
        }
        match self {
            ColumnValues::F64(v) => raw(v),
            ColumnValues::U64(v) => raw(v),
            ColumnValues::I64(v) => raw(v),
            ColumnValues::I32(v) => raw(v),
            ColumnValues::U8(v) => v,
        }
    }
}

#[pymethods]
impl ColumnBuffer {
    /// Length in bytes (as of the `bytes` object this replaced).
    fn __len__(&self) -> usize {
        self.values.bytes().len()
    }

    unsafe fn __getbuffer__(slf: Bound<'_, Self>, view: *mut pyo3::ffi::Py_buffer, flags: std::os::raw::c_int) -> PyResult<()> {
        // SAFETY: the view holds `slf`, which owns the values.
        unsafe { export_read_only(slf.as_any(), slf.get().values.bytes(), view, flags) }
    }

    unsafe fn __releasebuffer__(&self, _view: *mut pyo3::ffi::Py_buffer) {}
}

/// The resolved scenario's UTF-8 text, exported read-only through the buffer protocol (see
/// `Simulation.resolved_toml_buffer`): written to a file or hashed without becoming a Python
/// string (70 MB at 100,000 flows, and a second copy when a text file encodes it).
#[pyclass(frozen, name = "TextBuffer")]
struct TextBuffer {
    texts: Arc<PendingTexts>,
}

#[pymethods]
impl TextBuffer {
    /// Length in bytes.
    fn __len__(&self) -> usize {
        self.texts.wait().resolved_toml.len()
    }

    unsafe fn __getbuffer__(slf: Bound<'_, Self>, view: *mut pyo3::ffi::Py_buffer, flags: std::os::raw::c_int) -> PyResult<()> {
        // Made only once the texts are written (`resolved_toml_buffer`), so `wait` returns at once.
        // SAFETY: as for `ColumnBuffer`: the view holds `slf`, which owns the text.
        unsafe { export_read_only(slf.as_any(), slf.get().texts.wait().resolved_toml.as_bytes(), view, flags) }
    }

    unsafe fn __releasebuffer__(&self, _view: *mut pyo3::ffi::Py_buffer) {}
}

/// Fills `view` with `bytes`, read-only, owned by `owner` (which the view keeps alive).
///
/// # Safety
/// `view` is the buffer protocol's view to fill, and `bytes` lives as long as `owner`.
unsafe fn export_read_only(owner: &Bound<'_, PyAny>, bytes: &[u8], view: *mut pyo3::ffi::Py_buffer, flags: std::os::raw::c_int) -> PyResult<()> {
    use pyo3::exceptions::PyBufferError;
    if view.is_null() {
        return Err(PyBufferError::new_err("no view to fill"));
    }
    if flags & pyo3::ffi::PyBUF_WRITABLE == pyo3::ffi::PyBUF_WRITABLE {
        return Err(PyBufferError::new_err("the buffer is read-only"));
    }
    // SAFETY: the caller's view; the pointer and length describe memory owned by `owner`, to
    // which `FillInfo` gives the view a reference (`view.obj`).
    let rc = unsafe { pyo3::ffi::PyBuffer_FillInfo(view, owner.as_ptr(), bytes.as_ptr() as *mut std::os::raw::c_void, bytes.len() as pyo3::ffi::Py_ssize_t, 1, flags) };
    if rc != 0 {
        return Err(PyErr::fetch(owner.py()));
    }
    Ok(())
}

/// A table as a list of (column, dtype, data), each column's data a [`ColumnBuffer`] (or a pair
/// of them) that Python wraps as Arrow buffers without making one object per row: numbers in
/// the machine's byte order ("f64", "i64", "u64"), booleans as (rows, bitmap) ("bits", least
/// significant bit first), strings in Arrow's layout ("utf8": int32 offsets and the UTF-8
/// bytes). Counters are u64 here and int64 in Python: a counter column whose values all fit is
/// sent as "i64" (no conversion pass on the Python side); one that does not is sent as "u64"
/// and refused there. The table is consumed: its vectors become the buffers.
fn table_to_py<'py>(py: Python<'py>, t: Table) -> PyResult<Bound<'py, PyList>> {
    fn column<'py>(py: Python<'py>, name: &str, dtype: &str, data: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, [name.into_pyobject(py)?.into_any(), dtype.into_pyobject(py)?.into_any(), data])
    }
    fn buffer(py: Python<'_>, values: ColumnValues) -> PyResult<Bound<'_, PyAny>> {
        Ok(Bound::new(py, ColumnBuffer { values })?.into_any())
    }
    let out = PyList::empty(py);
    for (name, col) in t.columns {
        let item = match col {
            ColumnData::F64(v) => column(py, &name, "f64", buffer(py, ColumnValues::F64(v))?)?,
            ColumnData::U64(v) => {
                let dtype = if v.iter().all(|&x| x <= i64::MAX as u64) { "i64" } else { "u64" };
                column(py, &name, dtype, buffer(py, ColumnValues::U64(v))?)?
            }
            ColumnData::I64(v) => column(py, &name, "i64", buffer(py, ColumnValues::I64(v))?)?,
            ColumnData::Bool(v) => {
                // Arrow's layout: one bit per value, least significant bit first.
                let mut bits = vec![0u8; v.len().div_ceil(8)];
                for (i, &x) in v.iter().enumerate() {
                    bits[i / 8] |= (x as u8) << (i % 8);
                }
                let pair = PyTuple::new(py, [v.len().into_pyobject(py)?.into_any(), buffer(py, ColumnValues::U8(bits))?])?;
                column(py, &name, "bits", pair.into_any())?
            }
            ColumnData::Str(v) => {
                let total: usize = v.iter().map(|s| s.len()).sum();
                if total <= i32::MAX as usize {
                    let mut offsets = Vec::with_capacity(v.len() + 1);
                    let mut values = Vec::with_capacity(total);
                    offsets.push(0i32);
                    for s in &v {
                        values.extend_from_slice(s.as_bytes());
                        offsets.push(values.len() as i32);
                    }
                    let pair = PyTuple::new(py, [buffer(py, ColumnValues::I32(offsets))?, buffer(py, ColumnValues::U8(values))?])?;
                    column(py, &name, "utf8", pair.into_any())?
                } else {
                    column(py, &name, "str", PyList::new(py, v)?.into_any())?
                }
            }
        };
        out.append(item)?;
    }
    Ok(out)
}

#[pymethods]
impl PySimulation {
    /// Parses, validates and builds a scenario. `fmt` is "toml" or "json"; `seed` overrides the
    /// scenario's seed.
    #[new]
    #[pyo3(signature = (text, origin, fmt = "toml", seed = None))]
    fn new(py: Python<'_>, text: &str, origin: &str, fmt: &str, seed: Option<u64>) -> PyResult<Self> {
        // Parsed without the GIL, so that Python threads (the CLI imports pyarrow on one
        // while the scenario is read) run meanwhile.
        let mut sc = py.detach(|| parse(text, origin, fmt))?;
        if let Some(s) = seed {
            sc.simulation.seed = s;
        }
        // The resolved TOML and the run key's canonical form depend on the scenario alone, so
        // a second thread writes them while this one builds and, at large N, while the run
        // starts: at 100,000 flows the build takes about 0.7 s and the two texts about 1.1 s
        // (bench/README.md, seventeenth session). They are pure functions of the scenario: the
        // results do not depend on the threads' timing. `resolved_toml`, `run_key` and
        // `wait_for_texts` wait for the thread.
        let sc = Arc::new(sc);
        let texts = PendingTexts::start(Arc::clone(&sc));
        let sim = py.detach(|| pinchpoint_core::build(&sc, None, origin).map_err(|e| e.to_string())).map_err(ScenarioError::new_err)?;
        Ok(PySimulation { sim, scenario: sc, texts })
    }

    /// Waits until the resolved TOML and the run key's hash are written (a benchmark calls it
    /// before timing the run, so that their thread does not share the machine with the loop).
    fn wait_for_texts(&self, py: Python<'_>) {
        self.texts(py);
    }

    /// The canonical form of the resolved scenario that the run key hashes, as UTF-8 bytes
    /// (`pinchpoint.store.key_of_canonical`), made from the scenario in memory; None when only
    /// the text path can give it exactly (a non-finite float).
    fn canonical_scenario<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        let text = py.detach(|| scenario::canonical_json(&self.scenario))?;
        Some(PyBytes::new(py, text.as_bytes()))
    }

    /// The run key of this simulation under `seed` (`pinchpoint.store.key_of_canonical` of
    /// `canonical_scenario()`, without handing the canonical form to Python: 64 MB at 100,000
    /// flows); None when only the text path can make it.
    #[pyo3(signature = (seed, model_revision = pinchpoint_core::MODEL_REVISION))]
    fn run_key(&self, py: Python<'_>, seed: u64, model_revision: u32) -> Option<String> {
        self.texts(py).canonical_sha256.as_ref().map(|h| run_key_from(h, seed, model_revision))
    }

    /// Runs until simulated time `t_s` (seconds), releasing the GIL.
    fn run_until(&mut self, py: Python<'_>, t_s: f64) -> PyResult<()> {
        let t = secs_to_ps(t_s);
        let sim = &mut self.sim;
        py.detach(|| sim.run_until(t));
        match self.sim.error() {
            Some(e) => Err(ResourceLimitError::new_err(e.to_string())),
            None => Ok(()),
        }
    }

    /// Current simulated time, s.
    #[getter]
    fn now_s(&self) -> f64 {
        ps_to_secs(self.sim.now())
    }

    /// End time, s.
    #[getter]
    fn end_s(&self) -> f64 {
        ps_to_secs(self.sim.end())
    }

    /// True once the run is over.
    #[getter]
    fn finished(&self) -> bool {
        self.sim.finished()
    }

    /// The resolved scenario (TOML, defaults filled in, units canonical).
    #[getter]
    fn resolved_toml(&self, py: Python<'_>) -> &str {
        &self.texts(py).resolved_toml
    }

    /// The resolved scenario as UTF-8 bytes behind the buffer protocol (a `TextBuffer`):
    /// what `resolved_toml` gives, without making a Python string of it.
    fn resolved_toml_buffer<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.texts(py);
        Ok(Bound::new(py, TextBuffer { texts: Arc::clone(&self.texts) })?.into_any())
    }

    /// Run counters: events, packet_hops, packets_high_water.
    fn counters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.sim.counters();
        let d = PyDict::new(py);
        d.set_item("events", c.events)?;
        d.set_item("packet_hops", c.packet_hops)?;
        d.set_item("packets_high_water", c.packets_high_water)?;
        Ok(d)
    }

    /// Result tables at the current time: a dict of name -> list of (column, dtype, data).
    fn results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let r = self.sim.results();
        let d = PyDict::new(py);
        let meta = PyDict::new(py);
        meta.set_item("scenario", &r.scenario)?;
        meta.set_item("seed", r.seed)?;
        meta.set_item("end_time_s", r.end_time_s)?;
        meta.set_item("events", r.counters.events)?;
        meta.set_item("packet_hops", r.counters.packet_hops)?;
        meta.set_item("packets_high_water", r.counters.packets_high_water)?;
        meta.set_item("model_revision", pinchpoint_core::MODEL_REVISION)?;
        let tc = r.transfer_counters;
        meta.set_item("transfers_arrived", tc.arrived)?;
        meta.set_item("transfers_live_high_water", tc.live_high_water)?;
        meta.set_item("transfer_slots", tc.slots)?;
        meta.set_item("transfer_state_bytes_high_water", tc.state_bytes_high_water)?;
        d.set_item("meta", meta)?;
        let pinchpoint_core::metrics::results::Results {
            flows, ports, links, flow_series, port_series, packets, queue_trace, capture, transfers, groups, loss_events, loss_events_total, flow_rates, ..
        } = r;
        for (name, t) in [
            ("flows", flows),
            ("ports", ports),
            ("links", links),
            ("flow_series", flow_series),
            ("port_series", port_series),
            ("packets", packets),
            ("queue_trace", queue_trace),
            ("capture", capture),
            ("transfers", transfers),
            ("groups", groups),
            ("loss_events", loss_events),
            ("loss_events_total", loss_events_total),
            ("flow_rates", flow_rates),
        ] {
            d.set_item(name, table_to_py(py, t)?)?;
        }
        Ok(d)
    }
}

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    #[cfg(unix)]
    {
        static AT_FORK: std::sync::Once = std::sync::Once::new();
        // SAFETY: registers a plain function with no arguments, once per process.
        AT_FORK.call_once(|| unsafe {
            libc::pthread_atfork(Some(wait_for_text_writers), None, None);
        });
    }
    m.add_class::<PySimulation>()?;
    m.add_class::<ColumnBuffer>()?;
    m.add_class::<TextBuffer>()?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(canonical_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(preset_dumbbell, m)?)?;
    m.add_function(wrap_pyfunction!(json_schema, m)?)?;
    m.add_function(wrap_pyfunction!(random_parts, m)?)?;
    m.add_function(wrap_pyfunction!(toml_to_json, m)?)?;
    m.add_function(wrap_pyfunction!(paths_at, m)?)?;
    m.add_function(wrap_pyfunction!(queue_in_effect, m)?)?;
    m.add_function(wrap_pyfunction!(tcp_in_effect, m)?)?;
    m.add_function(wrap_pyfunction!(default_cc, m)?)?;
    m.add_function(wrap_pyfunction!(unit_table, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("ResourceLimitError", m.py().get_type::<ResourceLimitError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MODEL_REVISION", pinchpoint_core::MODEL_REVISION)?;
    Ok(())
}
