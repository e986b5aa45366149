// SPDX-License-Identifier: MIT
// rustwl: the Rust workload of test 'unwind demangled', built by the test
// with Debian's rustc -O, in legacy and in v0 symbol mangling:
// main -> rustwl::geo::walk::<u64> -> rustwl::geo::Grid::spin, a loop of
// STEPS steps in all.
//
// usage: rustwl STEPS
mod geo {
    pub struct Grid {
        pub k: u64,
    }

    impl Grid {
        #[inline(never)]
        pub fn spin(&self, n: u64) -> u64 {
            let mut x = self.k;
            for _ in 0..n {
                x = unsafe { std::ptr::read_volatile(&x) };
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            }
            x
        }
    }

    #[inline(never)]
    pub fn walk<T: Into<u64>>(g: &Grid, n: T) -> u64 {
        g.spin(n.into()).wrapping_add(1)
    }
}

fn main() {
    let n: u64 = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(100000000);
    let g = geo::Grid { k: 1 };
    let mut s = 0u64;
    for _ in 0..10 {
        s = s.wrapping_add(geo::walk(&g, n / 10));
    }
    println!("sum {}", s);
}
