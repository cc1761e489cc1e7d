"""Report figures tell every run apart: past the palette's eight colours each series gets
another fill pattern, so the ninth run no longer looks like the first."""

from lexbench.report.figures import HATCHES, PALETTE, bar_with_intervals, series_style


def test_series_styles_are_distinct_beyond_the_palette():
    count = len(PALETTE) * len(HATCHES)
    styles = [series_style(i) for i in range(count)]
    assert len(set(styles)) == count
    assert series_style(len(PALETTE))[0] == series_style(0)[0]  # the colour comes round...
    assert series_style(len(PALETTE)) != series_style(0)  # ...with a pattern


def test_a_figure_of_ten_runs_draws_each_its_own_way(tmp_path, monkeypatch):
    import matplotlib.axes

    drawn: list[tuple[str, str | None]] = []
    bar = matplotlib.axes.Axes.bar

    def recording_bar(self, *args, **kwargs):
        drawn.append((kwargs.get("color"), kwargs.get("hatch")))
        return bar(self, *args, **kwargs)

    monkeypatch.setattr(matplotlib.axes.Axes, "bar", recording_bar)
    runs = {f"run {i}": [0.1 * (i % 5), 0.2] for i in range(10)}
    estimates = [v for values in runs.values() for v in values]
    path = bar_with_intervals(
        tmp_path / "ten.png",
        ["a", "b"],
        estimates,
        [max(0.0, e - 0.05) for e in estimates],
        [min(1.0, e + 0.05) for e in estimates],
        title="ten runs",
        ylabel="accuracy",
        series=runs,
    )
    assert path.is_file()
    assert len(drawn) == 10 and len(set(drawn)) == 10
