//! Column tables handed to Python (and written as Parquet there).

/// One column of values.
#[derive(Clone, Debug)]
pub enum ColumnData {
    /// Floating point.
    F64(Vec<f64>),
    /// Unsigned integers.
    U64(Vec<u64>),
    /// Signed integers.
    I64(Vec<i64>),
    /// Booleans.
    Bool(Vec<bool>),
    /// Text.
    Str(Vec<String>),
}

impl ColumnData {
    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            ColumnData::F64(v) => v.len(),
            ColumnData::U64(v) => v.len(),
            ColumnData::I64(v) => v.len(),
            ColumnData::Bool(v) => v.len(),
            ColumnData::Str(v) => v.len(),
        }
    }
    /// True when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A table: named columns of equal length.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// The columns in order.
    pub columns: Vec<(String, ColumnData)>,
}

impl Table {
    /// Appends a column.
    pub fn col(&mut self, name: &str, data: ColumnData) -> &mut Self {
        debug_assert!(self.columns.is_empty() || self.columns[0].1.len() == data.len(), "column {name} length");
        self.columns.push((name.to_string(), data));
        self
    }
    /// The column called `name`.
    pub fn get(&self, name: &str) -> Option<&ColumnData> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
    /// A float column by name (panics if absent or of another type; for tests).
    pub fn f64s(&self, name: &str) -> &[f64] {
        match self.get(name) {
            Some(ColumnData::F64(v)) => v,
            _ => panic!("no f64 column {name}"),
        }
    }
    /// An unsigned column by name (panics if absent or of another type; for tests).
    pub fn u64s(&self, name: &str) -> &[u64] {
        match self.get(name) {
            Some(ColumnData::U64(v)) => v,
            _ => panic!("no u64 column {name}"),
        }
    }
    /// A text column by name (panics if absent or of another type; for tests).
    pub fn strs(&self, name: &str) -> &[String] {
        match self.get(name) {
            Some(ColumnData::Str(v)) => v,
            _ => panic!("no str column {name}"),
        }
    }
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.1.len())
    }
}
