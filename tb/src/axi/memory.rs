//! A sparse byte-addressed memory behind both AXI ports.

use std::collections::HashMap;

const PAGE: u64 = 4096;

/// Memory that reads 0 where nothing was written.
#[derive(Clone, Debug, Default)]
pub struct SparseMemory {
    pages: HashMap<u64, Box<[u8; PAGE as usize]>>,
}

impl SparseMemory {
    pub fn read(&self, addr: u64, buf: &mut [u8]) {
        for (i, b) in buf.iter_mut().enumerate() {
            let a = addr + i as u64;
            *b = self
                .pages
                .get(&(a / PAGE))
                .map_or(0, |p| p[(a % PAGE) as usize]);
        }
    }

    pub fn write(&mut self, addr: u64, data: &[u8]) {
        for (i, &b) in data.iter().enumerate() {
            let a = addr + i as u64;
            self.pages
                .entry(a / PAGE)
                .or_insert_with(|| Box::new([0; PAGE as usize]))[(a % PAGE) as usize] = b;
        }
    }

    pub fn read_vec(&self, addr: u64, len: usize) -> Vec<u8> {
        let mut v = vec![0; len];
        self.read(addr, &mut v);
        v
    }
}
