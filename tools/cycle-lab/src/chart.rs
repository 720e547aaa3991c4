//! The journey as an SVG bar chart: one bar per variant (reference-seed cycles) with the
//! sweep's min..max as a whisker and its median as a mark. Plain SVG text, deterministic:
//! the same table always gives the same bytes.

use crate::journey::Journey;
use doc_blocks::thousands;

const WIDTH: f64 = 980.0;
const LABEL_W: f64 = 290.0;
const LEFT: f64 = LABEL_W + 20.0;
const RIGHT: f64 = WIDTH - 110.0;
const TOP: f64 = 78.0;
const ROW: f64 = 28.0;
const BAR: f64 = 16.0;

/// Reference lines: the optimization journey's published verifiers (on its own toolchain)
/// and the computed floor of the reference workload (398 merges at about 1,290 cycles plus
/// loading the ELF and the witness; docs/hashing.md).
const REFERENCES: [(&str, u64); 4] = [
    ("floor, computed: ~521,000", 521_000),
    ("optimization journey, C: 1,710,518", 1_710_518),
    ("optimization journey, Rust: 1,836,013", 1_836_013),
    ("optimization journey, compiled Rust: 2,049,057", 2_049_057),
];
/// Height of one reference label line under the axis.
const REF_LINE: f64 = 14.0;

fn color(group: &str) -> &'static str {
    match group {
        "baseline-verifier" => "#4c72b0",
        "compiled-verifier" => "#dd8452",
        "c" => "#55a868",
        _ => "#8172b3",
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A round axis maximum and tick step at or above `max`.
fn axis(max: u64) -> (u64, u64) {
    // Steps of 1, 2, 2.5 and 5 times a power of ten.
    let mut step = 1u64;
    loop {
        for m in [10, 20, 25, 50] {
            let s = (step * m / 10).max(1);
            if s * 10 >= max {
                return (max.div_ceil(s) * s, s);
            }
        }
        step *= 10;
    }
}

/// Short axis labels: 0, 250k, 1M, 1.25M.
fn tick_label(v: u64) -> String {
    if v >= 1_000_000 {
        let m = format!("{:.3}", v as f64 / 1e6);
        format!("{}M", m.trim_end_matches('0').trim_end_matches('.'))
    } else if v >= 1_000 && v.is_multiple_of(1_000) {
        format!("{}k", v / 1_000)
    } else {
        thousands(v)
    }
}

pub fn svg(j: &Journey) -> String {
    let rows = &j.rows;
    let top_value = rows
        .iter()
        .map(|r| r.reference_cycles.max(r.sweep.max))
        .chain(REFERENCES.iter().map(|&(_, v)| v))
        .max()
        .unwrap_or(1);
    let (axis_max, step) = axis(top_value);
    let x = |v: u64| LEFT + (RIGHT - LEFT) * v as f64 / axis_max as f64;
    let plot_bottom = TOP + ROW * rows.len() as f64;
    let refs_top = plot_bottom + 52.0;
    let height = refs_top + REF_LINE * REFERENCES.len() as f64 + 36.0;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" \
         viewBox=\"0 0 {WIDTH} {height}\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" \
         font-size=\"12\">\n<rect width=\"{WIDTH}\" height=\"{height}\" fill=\"#ffffff\"/>\n\
         <text x=\"20\" y=\"26\" font-size=\"17\" font-weight=\"bold\">MMR verifier journey: \
         cycles per step</text>\n\
         <text x=\"20\" y=\"46\" fill=\"#444\">Bars: cycles on the reference seed {} \
         (ckb-debugger). Whiskers: min..max over {}, mark at the median (ckb-script).</text>\n",
        j.reference_seed,
        escape(&j.sweep_description())
    );
    // Grid and axis labels.
    let mut v = 0;
    while v <= axis_max {
        let gx = x(v);
        s.push_str(&format!(
            "<line x1=\"{gx:.1}\" y1=\"{:.1}\" x2=\"{gx:.1}\" y2=\"{plot_bottom:.1}\" \
             stroke=\"#e3e3e3\"/>\n\
             <text x=\"{gx:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#444\">{}</text>\n",
            TOP - 6.0,
            plot_bottom + 16.0,
            tick_label(v)
        ));
        v += step;
    }
    s.push_str(&format!(
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#444\">cycles</text>\n",
        (LEFT + RIGHT) / 2.0,
        plot_bottom + 34.0
    ));
    for (i, r) in rows.iter().enumerate() {
        let y = TOP + ROW * i as f64;
        let cy = y + BAR / 2.0;
        let fill = color(&r.variant.group);
        let label = escape(&r.variant.label);
        s.push_str(&format!(
            "<text x=\"{LABEL_W}\" y=\"{:.1}\" text-anchor=\"end\">{label}</text>\n\
             <rect x=\"{LEFT}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{BAR}\" fill=\"{fill}\">\
             <title>{label}: {} cycles on the reference seed; sweep min {}, median {}, max {}; \
             {} stripped bytes</title></rect>\n",
            cy + 4.0,
            x(r.reference_cycles) - LEFT,
            thousands(r.reference_cycles),
            thousands(r.sweep.min),
            thousands(r.sweep.median),
            thousands(r.sweep.max),
            thousands(r.stripped_bytes)
        ));
        let (x0, x1, xm) = (x(r.sweep.min), x(r.sweep.max), x(r.sweep.median));
        s.push_str(&format!(
            "<g stroke=\"#222\" stroke-width=\"1.2\"><line x1=\"{x0:.1}\" y1=\"{cy:.1}\" \
             x2=\"{x1:.1}\" y2=\"{cy:.1}\"/><line x1=\"{x0:.1}\" y1=\"{:.1}\" x2=\"{x0:.1}\" \
             y2=\"{:.1}\"/><line x1=\"{x1:.1}\" y1=\"{:.1}\" x2=\"{x1:.1}\" y2=\"{:.1}\"/></g>\n\
             <rect x=\"{:.1}\" y=\"{:.1}\" width=\"4\" height=\"10\" fill=\"#222\"/>\n",
            cy - 5.0,
            cy + 5.0,
            cy - 5.0,
            cy + 5.0,
            xm - 2.0,
            cy - 5.0
        ));
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\">{}</text>\n",
            x(r.reference_cycles.max(r.sweep.max)) + 6.0,
            cy + 4.0,
            thousands(r.reference_cycles)
        ));
    }
    // Reference lines, dashed over the plot, each labelled on a line of its own below the
    // axis (their values are too close together to label side by side).
    for (i, &(label, v)) in REFERENCES.iter().enumerate() {
        let rx = x(v);
        let ty = refs_top + REF_LINE * i as f64;
        s.push_str(&format!(
            "<line x1=\"{rx:.1}\" y1=\"{:.1}\" x2=\"{rx:.1}\" y2=\"{ty:.1}\" stroke=\"#c44e52\" \
             stroke-width=\"1\" stroke-dasharray=\"5,4\"/>\n\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"#c44e52\">{}</text>\n",
            TOP - 6.0,
            rx - 4.0,
            ty + 4.0,
            escape(label)
        ));
    }
    // Legend.
    let mut lx = LEFT;
    let ly = height - 18.0;
    let mut groups: Vec<&str> = Vec::new();
    for r in rows {
        if !groups.contains(&r.variant.group.as_str()) {
            groups.push(&r.variant.group);
        }
    }
    for g in groups {
        let name = match g {
            "baseline-verifier" => "baseline (Rust)",
            "compiled-verifier" => "compiled (Rust)",
            "c" => "C",
            other => other,
        };
        s.push_str(&format!(
            "<rect x=\"{lx:.1}\" y=\"{:.1}\" width=\"12\" height=\"12\" fill=\"{}\"/>\
             <text x=\"{:.1}\" y=\"{ly:.1}\">{}</text>\n",
            ly - 10.0,
            color(g),
            lx + 17.0,
            escape(name)
        ));
        lx += 150.0;
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn axis_is_round_and_covers() {
        assert_eq!(super::axis(1_673_122), (1_800_000, 200_000));
        assert_eq!(super::axis(900), (900, 100));
        assert_eq!(super::axis(1), (1, 1));
        assert_eq!(super::axis(2_045_794), (2_250_000, 250_000));
    }

    #[test]
    fn tick_labels_are_short() {
        assert_eq!(super::tick_label(0), "0");
        assert_eq!(super::tick_label(250_000), "250k");
        assert_eq!(super::tick_label(1_000_000), "1M");
        assert_eq!(super::tick_label(1_250_000), "1.25M");
        assert_eq!(super::tick_label(800), "800");
    }
}
