//! The memory behind the NPU's AXI ports as one byte-addressed space: the
//! windows a host maps (its own buffers, by pointer, read and written in
//! place) or the space owns, and sparse pages everywhere else that read 0
//! until written. Which addresses answer at all is the bus's business: a
//! device answers DECERR outside its windows (`windows`), a testbench
//! wherever it likes.

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;
use std::ptr::NonNull;

const PAGE: u64 = 4096;

/// The AXI managers' address width (TRM A.4: 40-bit addresses).
pub const ADDRESS_BITS: u32 = 40;

/// Why a window cannot be mapped or unmapped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    #[error("a window of 0 bytes at {0:#x}")]
    Empty(u64),
    #[error(
        "the window [{base:#x}, {end:#x}) does not fit the {ADDRESS_BITS}-bit AXI address space"
    )]
    OutOfRange { base: u64, end: u128 },
    #[error(
        "the window [{base:#x}, {end:#x}) overlaps the window [{other_base:#x}, {other_end:#x})"
    )]
    Overlap {
        base: u64,
        end: u64,
        other_base: u64,
        other_end: u64,
    },
    #[error("no window starts at {0:#x}")]
    NotMapped(u64),
    #[error("[{base:#x}, {end:#x}) is not inside one window")]
    Outside { base: u64, end: u128 },
}

enum Backing {
    Owned(Vec<u8>),
    /// The host's buffer: valid for the window's length while mapped (the
    /// promise of [`AddressSpace::map_host`]'s caller).
    Host(NonNull<u8>),
}

struct Window {
    base: u64,
    len: usize,
    backing: Backing,
}

impl Window {
    fn end(&self) -> u64 {
        self.base + self.len as u64
    }

    fn ptr(&mut self) -> *mut u8 {
        match &mut self.backing {
            Backing::Owned(v) => v.as_mut_ptr(),
            Backing::Host(p) => p.as_ptr(),
        }
    }

    fn bytes(&self) -> &[u8] {
        match &self.backing {
            Backing::Owned(v) => v,
            // SAFETY: `map_host`'s caller keeps the buffer valid while mapped.
            Backing::Host(p) => unsafe { std::slice::from_raw_parts(p.as_ptr(), self.len) },
        }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        let len = self.len;
        match &mut self.backing {
            Backing::Owned(v) => v,
            // SAFETY: as in `bytes`, and the space is borrowed mutably.
            Backing::Host(p) => unsafe { std::slice::from_raw_parts_mut(p.as_ptr(), len) },
        }
    }
}

/// Windows and sparse pages (the module doc).
#[derive(Default)]
pub struct AddressSpace {
    /// Sorted by base, disjoint.
    windows: Vec<Window>,
    pages: HashMap<u64, Box<[u8; PAGE as usize]>>,
}

// SAFETY: the host buffers a space points at are the host's to keep valid
// and unshared while mapped, whichever thread uses the space
// (`map_host`); everything else the space owns.
unsafe impl Send for AddressSpace {}

impl fmt::Debug for AddressSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AddressSpace")
            .field("windows", &self.windows().collect::<Vec<_>>())
            .field("pages", &self.pages.len())
            .finish()
    }
}

impl AddressSpace {
    /// Maps `len` bytes of the host's memory at `ptr` at AXI address `base`:
    /// the NPU reads and writes them in place.
    ///
    /// # Safety
    /// `ptr` must be valid for reads and writes of `len` bytes, and not be
    /// read or written by anything else while the NPU runs, until the window
    /// is unmapped or the space dropped.
    pub unsafe fn map_host(
        &mut self,
        base: u64,
        ptr: NonNull<u8>,
        len: usize,
    ) -> Result<(), MapError> {
        self.insert(base, len, Backing::Host(ptr))
    }

    /// Maps `len` bytes of zeros the space owns at `base`.
    pub fn map_owned(&mut self, base: u64, len: usize) -> Result<(), MapError> {
        self.insert(base, len, Backing::Owned(vec![0; len]))
    }

    /// Maps `bytes`, which the space takes, at `base`.
    pub fn map_bytes(&mut self, base: u64, bytes: Vec<u8>) -> Result<(), MapError> {
        self.insert(base, bytes.len(), Backing::Owned(bytes))
    }

    fn insert(&mut self, base: u64, len: usize, backing: Backing) -> Result<(), MapError> {
        if len == 0 {
            return Err(MapError::Empty(base));
        }
        let end = u128::from(base) + len as u128;
        if end > 1 << ADDRESS_BITS {
            return Err(MapError::OutOfRange { base, end });
        }
        let end = end as u64;
        if let Some(w) = self.windows.iter().find(|w| base < w.end() && w.base < end) {
            return Err(MapError::Overlap {
                base,
                end,
                other_base: w.base,
                other_end: w.end(),
            });
        }
        let at = self.windows.partition_point(|w| w.base < base);
        self.windows.insert(at, Window { base, len, backing });
        Ok(())
    }

    /// Removes the window that starts at `base`; an owned one's bytes go.
    pub fn unmap(&mut self, base: u64) -> Result<(), MapError> {
        let at = self
            .windows
            .iter()
            .position(|w| w.base == base)
            .ok_or(MapError::NotMapped(base))?;
        self.windows.remove(at);
        Ok(())
    }

    /// Every window's addresses, in address order.
    pub fn windows(&self) -> impl Iterator<Item = Range<u64>> + '_ {
        self.windows.iter().map(|w| w.base..w.end())
    }

    fn window_index(&self, address: u64) -> Option<usize> {
        let at = self.windows.partition_point(|w| w.base <= address);
        (at > 0 && address < self.windows[at - 1].end()).then(|| at - 1)
    }

    /// The window holding `address`, and a pointer to that byte with the
    /// window's bytes from there: what a region based at `address` may reach.
    /// The pointer is valid while the window stays mapped and the space is
    /// not moved or written otherwise.
    pub fn window_from(&mut self, address: u64) -> Option<(NonNull<u8>, usize)> {
        let index = self.window_index(address)?;
        let w = &mut self.windows[index];
        let offset = (address - w.base) as usize;
        // SAFETY: `offset` is inside the window.
        let ptr = unsafe { w.ptr().add(offset) };
        Some((NonNull::new(ptr)?, w.len - offset))
    }

    /// Copies `data` into the bytes at `address`, which must lie in one
    /// window (the host's copy-in).
    pub fn copy_in(&mut self, address: u64, data: &[u8]) -> Result<(), MapError> {
        let range = self.inside(address, data.len())?;
        let w = &mut self.windows[range.0];
        w.bytes_mut()[range.1..range.1 + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// Copies the bytes at `address`, which must lie in one window, out.
    pub fn copy_out(&self, address: u64, out: &mut [u8]) -> Result<(), MapError> {
        let (index, offset) = self.inside(address, out.len())?;
        out.copy_from_slice(&self.windows[index].bytes()[offset..offset + out.len()]);
        Ok(())
    }

    /// The window and offset of `len` bytes at `address` inside one window.
    fn inside(&self, address: u64, len: usize) -> Result<(usize, usize), MapError> {
        let end = u128::from(address) + len as u128;
        let outside = MapError::Outside { base: address, end };
        let index = self.window_index(address).ok_or(outside.clone())?;
        let w = &self.windows[index];
        if end > u128::from(w.end()) {
            return Err(outside);
        }
        Ok((index, (address - w.base) as usize))
    }

    /// The bytes at `addr`: a window's where one holds them, a page's
    /// elsewhere (0 where nothing was written).
    pub fn read(&self, addr: u64, buf: &mut [u8]) {
        let mut done = 0;
        while done < buf.len() {
            let a = addr.wrapping_add(done as u64);
            let n = match self.window_index(a) {
                Some(i) => {
                    let w = &self.windows[i];
                    let offset = (a - w.base) as usize;
                    let n = (w.len - offset).min(buf.len() - done);
                    buf[done..done + n].copy_from_slice(&w.bytes()[offset..offset + n]);
                    n
                }
                None => {
                    buf[done] = self
                        .pages
                        .get(&(a / PAGE))
                        .map_or(0, |p| p[(a % PAGE) as usize]);
                    1
                }
            };
            done += n;
        }
    }

    pub fn write(&mut self, addr: u64, data: &[u8]) {
        let mut done = 0;
        while done < data.len() {
            let a = addr.wrapping_add(done as u64);
            let n = match self.window_index(a) {
                Some(i) => {
                    let w = &mut self.windows[i];
                    let offset = (a - w.base) as usize;
                    let n = (w.len - offset).min(data.len() - done);
                    w.bytes_mut()[offset..offset + n].copy_from_slice(&data[done..done + n]);
                    n
                }
                None => {
                    self.pages
                        .entry(a / PAGE)
                        .or_insert_with(|| Box::new([0; PAGE as usize]))
                        [(a % PAGE) as usize] = data[done];
                    1
                }
            };
            done += n;
        }
    }

    pub fn read_vec(&self, addr: u64, len: usize) -> Vec<u8> {
        let mut v = vec![0; len];
        self.read(addr, &mut v);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_and_pages_hold_their_bytes_and_refuse_overlaps() {
        let mut space = AddressSpace::default();
        let mut host = vec![7u8; 64];
        // SAFETY: `host` outlives the space's use of it below.
        unsafe {
            space
                .map_host(0x1000, NonNull::new(host.as_mut_ptr()).unwrap(), 64)
                .unwrap();
        }
        space.map_owned(0x2000, 32).unwrap();
        assert_eq!(
            space.map_owned(0x1030, 64),
            Err(MapError::Overlap {
                base: 0x1030,
                end: 0x1070,
                other_base: 0x1000,
                other_end: 0x1040
            })
        );
        assert!(matches!(
            space.map_owned(u64::MAX - 4, 8),
            Err(MapError::OutOfRange { .. })
        ));
        assert_eq!(space.map_owned(0x3000, 0), Err(MapError::Empty(0x3000)));
        // A write across the host window's end and into the pages beyond.
        space.write(0x103e, &[1, 2, 3, 4]);
        assert_eq!(&host[62..], &[1, 2]);
        assert_eq!(space.read_vec(0x103e, 4), [1, 2, 3, 4]);
        space.copy_in(0x2010, &[9; 16]).unwrap();
        let mut out = [0; 2];
        space.copy_out(0x201f, &mut out[..1]).unwrap();
        assert_eq!(out[0], 9);
        assert!(matches!(
            space.copy_out(0x201f, &mut out),
            Err(MapError::Outside { .. })
        ));
        let (ptr, len) = space.window_from(0x2010).unwrap();
        assert_eq!(len, 16);
        // SAFETY: inside the owned window, which stays mapped.
        assert_eq!(unsafe { *ptr.as_ptr() }, 9);
        assert_eq!(
            space.windows().collect::<Vec<_>>(),
            [0x1000..0x1040, 0x2000..0x2020]
        );
        space.unmap(0x1000).unwrap();
        assert_eq!(space.unmap(0x1000), Err(MapError::NotMapped(0x1000)));
        assert_eq!(
            space.read_vec(0x1000, 2),
            [0, 0],
            "pages, not the host's buffer"
        );
    }
}
