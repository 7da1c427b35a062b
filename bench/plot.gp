# memcpy/kernel ratio per case (bench/report.py --data): bars are medians, whiskers min..max,
# crosses the single-thread targets.
#   gnuplot -e "data='bench/ratios.dat'; out='bench/ratios.png'" bench/plot.gp
if (!exists("data")) data = 'bench/ratios.dat'
if (!exists("out")) out = 'bench/ratios.png'
set terminal pngcairo size 2000,800 noenhanced font ",10"
set output out
set title "Optimized kernel vs memcpy of the output bytes (1.0 = as fast as memcpy; higher is better)"
set ylabel "memcpy time / kernel time"
set yrange [0:*]
set grid ytics
set key top left
set style fill solid 0.6 border -1
set xtics rotate by 40 right
set bmargin 15
set offsets 0.6, 0.6, 0, 0
plot data using ($1-0.18):3:4:5:(0.35) with boxerrorbars lc rgb "#4477aa" title "1 thread", \
     data using ($1+0.18):6:7:8:(0.35):xtic(2) with boxerrorbars lc rgb "#ee6677" title "2 threads", \
     data using ($1-0.18):($9 > 0 ? $9 : NaN) with points pt 2 ps 2 lw 2 lc rgb "black" title "1-thread target"
