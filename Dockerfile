# A Weir broker image: built from this tree on Debian 12, the way the README
# builds it, then copied onto a slim Debian 12 with only the run-time libraries.
FROM debian:12 AS build
WORKDIR /src
COPY . .
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      cmake ninja-build g++ pkg-config python3 \
      libboost1.81-dev libboost-json1.81-dev libboost-program-options1.81-dev \
      zlib1g-dev libsnappy-dev liblz4-dev libzstd-dev libisal-dev \
      libgtest-dev libgmock-dev libfmt-dev librdkafka-dev libssl-dev libzookeeper-mt-dev \
    && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWEIR_BENCH=OFF \
    && cmake --build build --target weir

FROM debian:12-slim
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      libboost-json1.81.0 libboost-program-options1.81.0 zlib1g libsnappy1v5 liblz4-1 libzstd1 libisal2 \
      libfmt9 librdkafka1 librdkafka++1 libssl3 libzookeeper-mt2 \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/build/bin/weir /usr/local/bin/weir
VOLUME /var/lib/weir
EXPOSE 9092
ENTRYPOINT ["weir", "serve"]
